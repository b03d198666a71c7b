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

// activationElem is how A's elements are stored: float32, or int16 for
// the integer products (gemm_int.go).
type activationElem interface {
	float32 | int16
}

// weightElem is how B's elements are stored: float32, fp16 bits (uint16,
// converted exactly as they are loaded) or int16 (with int16 activations;
// see gemm_int.go for their layout).
type weightElem interface {
	float32 | uint16 | int16
}

// microKernel computes the tile C[0:6, 0:16] (row stride ldc) as
// A[0:6, 0:k]·B (A row stride lda, B one packed panel of k rows, k at
// most blockK), adding to C when acc is set and overwriting it otherwise.
type microKernel[A activationElem, W weightElem] func(k int, a []A, lda int, b []W, c []float32, ldc int, acc bool)

// tileKernels are the micro-kernels for one format: six rows, and for a
// last tile of r < 6 rows edge[r-1], which computes at least the first r
// rows of the same 6×16 operands, so that a short sequence need not pay
// for six.
type tileKernels[A activationElem, W weightElem] struct {
	six  microKernel[A, W]
	edge [tileRows - 1]microKernel[A, W]
}

// sameKernels uses the six-row kernel for every tile.
func sameKernels[A activationElem, W weightElem](k microKernel[A, W]) tileKernels[A, W] {
	return tileKernels[A, W]{six: k, edge: [tileRows - 1]microKernel[A, W]{k, k, k, k, k}}
}

// gemmScratch holds the zero-padded copies used for the last, partial row
// tile; one per goroutine.
type gemmScratch struct {
	a  [tileRows * blockK]float32
	ai [tileRows * blockK]int16
	c  [tileRows * panelWidth]float32
}

// edgeRows is the scratch copy of A's last rows for A's element type.
func edgeRows[A activationElem](s *gemmScratch) []A {
	switch rows := any(s.ai[:]).(type) {
	case []A:
		return rows
	}
	return any(s.a[:]).([]A)
}

// gemm sets C (m×n, row stride ldc) to A (m×k, row stride lda) times the
// packed B (k×n), for panels [p0, p1) of B only; n = 16·(number of panels).
//
// Weights are far larger than the caches and each is used once per call,
// so the loops run over groups of panels outermost: a group (kc×64 floats)
// is read from memory once and stays in L2 while every row block of A
// passes over it, one panel at a time from L1.
func gemm[A activationElem, W weightElem](kern tileKernels[A, W], s *gemmScratch, m, k int, a []A, lda int, b []W, p0, p1 int, c []float32, ldc int) {
	full := m - m%tileRows
	for pc := 0; pc < k; pc += blockK {
		kc := min(blockK, k-pc)
		acc := pc > 0
		if full < m {
			// Copy the partial tile's rows of A once per k block.
			sa := edgeRows[A](s)
			clear(sa[:tileRows*kc])
			for r := full; r < m; r++ {
				copy(sa[(r-full)*kc:(r-full+1)*kc], a[r*lda+pc:r*lda+pc+kc])
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

// edgeTile runs the edge kernel for mr (< 6) rows on the padded copy of
// the last rows.
func edgeTile[A activationElem, W weightElem](kern tileKernels[A, W], s *gemmScratch, mr, kc int, bp []W, c []float32, ldc int, acc bool) {
	if acc {
		for r := 0; r < mr; r++ {
			copy(s.c[r*panelWidth:(r+1)*panelWidth], c[r*ldc:r*ldc+panelWidth])
		}
	}
	kern.edge[mr-1](kc, edgeRows[A](s), kc, bp, s.c[:], panelWidth, acc)
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
