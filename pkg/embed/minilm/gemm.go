package minilm

// The matrix products of the forward pass are C = A·B with A row-major
// (activations) and B packed in panels of panelWidth columns: panel p holds
// columns [p·16, p·16+16) as k consecutive rows of 16 floats. A micro-kernel
// computes a tileRows×panelWidth tile of C; the driver below blocks the
// loops so that a kc×16 slice of B stays in L1 and an mc×kc block of A in
// L2 while the kernel runs (the GotoBLAS scheme).
const (
	panelWidth  = 16
	tileRows    = 6
	blockK      = 384
	blockM      = 132 // multiple of tileRows
	groupPanels = 4
)

// weightElem is how B's elements are stored: float32, fp16 bits (uint16,
// converted exactly as they are loaded) or int8 (C then holds the unscaled
// sums and the caller applies each column's scale).
type weightElem interface {
	float32 | uint16 | int8
}

// microKernel computes the tile C[0:6, 0:16] (row stride ldc) as
// A[0:6, 0:k]·B (A row stride lda, B one packed panel of k rows, k at
// most blockK), adding to C when acc is set and overwriting it otherwise.
type microKernel[W weightElem] func(k int, a []float32, lda int, b []W, c []float32, ldc int, acc bool)

// tileKernels are the micro-kernels for one weight format: six rows, and
// three (the first three rows of the same 6×16 operands) for a last tile
// of at most three rows, which would otherwise be padded to six.
type tileKernels[W weightElem] struct {
	six, three microKernel[W]
}

// gemmScratch holds the zero-padded copies used for the last, partial row
// tile; one per goroutine.
type gemmScratch struct {
	a [tileRows * blockK]float32
	c [tileRows * panelWidth]float32
}

// gemm sets C (m×n, row stride ldc) to A (m×k, row stride lda) times the
// packed B (k×n), for panels [p0, p1) of B only; n = 16·(number of panels).
//
// Weights are far larger than the caches and each is used once per call,
// so the loops run over groups of panels outermost: a group (kc×64 floats)
// is read from memory once and stays in L2 while every row block of A
// passes over it, one panel at a time from L1.
func gemm[W weightElem](kern tileKernels[W], s *gemmScratch, m, k int, a []float32, lda int, b []W, p0, p1 int, c []float32, ldc int) {
	full := m - m%tileRows
	for pc := 0; pc < k; pc += blockK {
		kc := min(blockK, k-pc)
		acc := pc > 0
		if full < m {
			// Copy the partial tile's rows of A once per k block.
			clear(s.a[:tileRows*kc])
			for r := full; r < m; r++ {
				copy(s.a[(r-full)*kc:(r-full+1)*kc], a[r*lda+pc:r*lda+pc+kc])
			}
		}
		for pg := p0; pg < p1; pg += groupPanels {
			for ic := 0; ic < m; ic += blockM {
				mc := min(blockM, m-ic)
				for p := pg; p < min(pg+groupPanels, p1); p++ {
					bp := b[p*k*panelWidth+pc*panelWidth : p*k*panelWidth+(pc+kc)*panelWidth]
					col := p * panelWidth
					for r := ic; r < ic+mc; r += tileRows {
						if r < full {
							kern.six(kc, a[r*lda+pc:], lda, bp, c[r*ldc+col:], ldc, acc)
							continue
						}
						edgeTile(kern, s, m-r, kc, bp, c[r*ldc+col:], ldc, acc)
					}
				}
			}
		}
	}
}

// edgeTile runs a kernel on the padded copy of the last mr (< 6) rows:
// the three-row one when it covers them.
func edgeTile[W weightElem](kern tileKernels[W], s *gemmScratch, mr, kc int, bp []W, c []float32, ldc int, acc bool) {
	if acc {
		for r := 0; r < mr; r++ {
			copy(s.c[r*panelWidth:(r+1)*panelWidth], c[r*ldc:r*ldc+panelWidth])
		}
	}
	if mr <= 3 {
		kern.three(kc, s.a[:], kc, bp, s.c[:], panelWidth, acc)
	} else {
		kern.six(kc, s.a[:], kc, bp, s.c[:], panelWidth, acc)
	}
	for r := 0; r < mr; r++ {
		copy(c[r*ldc:r*ldc+panelWidth], s.c[r*panelWidth:(r+1)*panelWidth])
	}
}

// kernelGo is the portable micro-kernel: 2×4 register blocks over the
// 6×16 tile, each streaming through k.
func kernelGo(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	b = b[:k*panelWidth]
	for i := 0; i < tileRows; i += 2 {
		a0 := a[i*lda : i*lda+k]
		a1 := a[(i+1)*lda : (i+1)*lda+k]
		c0 := c[i*ldc : i*ldc+panelWidth]
		c1 := c[(i+1)*ldc : (i+1)*ldc+panelWidth]
		for j := 0; j < panelWidth; j += 4 {
			var s00, s01, s02, s03, s10, s11, s12, s13 float32
			for p, x0 := range a0 {
				x1 := a1[p]
				bb := b[p*panelWidth+j : p*panelWidth+j+4 : p*panelWidth+j+4]
				s00 += x0 * bb[0]
				s01 += x0 * bb[1]
				s02 += x0 * bb[2]
				s03 += x0 * bb[3]
				s10 += x1 * bb[0]
				s11 += x1 * bb[1]
				s12 += x1 * bb[2]
				s13 += x1 * bb[3]
			}
			if acc {
				s00 += c0[j]
				s01 += c0[j+1]
				s02 += c0[j+2]
				s03 += c0[j+3]
				s10 += c1[j]
				s11 += c1[j+1]
				s12 += c1[j+2]
				s13 += c1[j+3]
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s00, s01, s02, s03
			c1[j], c1[j+1], c1[j+2], c1[j+3] = s10, s11, s12, s13
		}
	}
}

// kernelGoF16 is the portable micro-kernel for fp16 panels: it widens the
// panel to float32 and runs kernelGo.
func kernelGoF16(k int, a []float32, lda int, b []uint16, c []float32, ldc int, acc bool) {
	var buf [blockK * panelWidth]float32
	wide := buf[:k*panelWidth]
	for i, h := range b[:k*panelWidth] {
		wide[i] = halfToFloat(h)
	}
	kernelGo(k, a, lda, wide, c, ldc, acc)
}

// kernelGoI8 is the portable micro-kernel for int8 panels: it widens the
// panel to float32 and runs kernelGo.
func kernelGoI8(k int, a []float32, lda int, b []int8, c []float32, ldc int, acc bool) {
	var buf [blockK * panelWidth]float32
	wide := buf[:k*panelWidth]
	for i, q := range b[:k*panelWidth] {
		wide[i] = float32(q)
	}
	kernelGo(k, a, lda, wide, c, ldc, acc)
}
