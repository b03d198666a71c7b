package minilm

import (
	"math"
)

// The integer products: activations rounded to int16 values of at most
// actMax with one scale per row (token), weights to int16 values of at
// most weightMax with one scale per column (output channel), multiplied in
// int32 by VPMADDWD, which does twice the multiply-adds per instruction of
// a float32 FMA. C receives the unscaled sums as float32; the caller
// multiplies C[r, c] by rowScale[r]·colScale[c].
//
// The integer panels hold the same 16 columns as the float32 ones, but as
// k pairs: pair i (rows 2i and 2i+1 of B) takes 32 values, columns 0..7
// then 8..15, each column as its two values side by side, which is what
// VPMADDWD multiplies with a broadcast pair of A. k must be even; a k block
// starts at element 16·pc of a panel as in the float layout.
//
// One kernel call sums at most blockK products of at most
// actMax·weightMax in int32; the blocks are then added in float32. The
// bits are split between the two so that this cannot overflow: int8
// weights (127) with full int16 activations failed the golden cosines by
// 0.003, the weights' rounding being most of the error.
const (
	actMax    = 8191 // |activation|, 13 bits
	weightMax = 511  // |weight|, 9 bits
)

// The sums of one kernel call fit in int32 (a compile-time check).
const _ = uint64(math.MaxInt32 - blockK*actMax*weightMax)

// The k pairs never straddle a k block.
const _ = uint(0 - blockK%2)

// pairIndex is where B[kk, c] of a panel lives in the pair layout.
func pairIndex(kk, c int) int {
	return kk/2*2*panelWidth + c/8*16 + c%8*2 + kk%2
}

// quantizeColumns rounds w, n columns of k in float32 panels, to integer
// panels in pair layout, one scale per column (max |w| / weightMax).
func quantizeColumns(w []float32, n, k int) (q []int16, scale []float32) {
	q = make([]int16, len(w))
	scale = make([]float32, n)
	for j := 0; j < n; j++ {
		panel, c := j/panelWidth*k*panelWidth, j%panelWidth
		var hi float64
		for kk := 0; kk < k; kk++ {
			hi = max(hi, math.Abs(float64(w[panel+kk*panelWidth+c])))
		}
		if hi == 0 {
			continue
		}
		scale[j] = float32(hi / weightMax)
		for kk := 0; kk < k; kk++ {
			v := math.Round(float64(w[panel+kk*panelWidth+c]) * weightMax / hi)
			q[panel+pairIndex(kk, c)] = int16(min(max(v, -weightMax), weightMax))
		}
	}
	return q, scale
}

// quantizeRows rounds each row of src (rows of k) to int16 in dst, with
// the row's scale (max |x| / actMax) in scale, using quantizeRow on each.
func quantizeRows(quantizeRow func(dst []int16, src []float32) float32, dst []int16, scale, src []float32, k int) {
	for r := range scale {
		out := dst[r*k : (r+1)*k]
		hi := quantizeRow(out, src[r*k:(r+1)*k])
		if hi == 0 {
			clear(out)
		}
		scale[r] = hi / actMax
	}
}

// quantizeRowGo sets dst to src·actMax/hi rounded to the nearest integer
// (ties to even), where hi = max |src|, and returns hi; dst is left
// alone when hi is 0.
func quantizeRowGo(dst []int16, src []float32) float32 {
	var hi uint32 // |x| ordered as its bits
	for _, v := range src {
		hi = max(hi, math.Float32bits(v)&0x7fffffff)
	}
	h := math.Float32frombits(hi)
	if h == 0 {
		return 0
	}
	inv := actMax / h
	dst = dst[:len(src)]
	for i, v := range src {
		// |v·inv| ≤ actMax up to rounding, so no clamp is needed.
		dst[i] = int16(math.RoundToEven(float64(v * inv)))
	}
	return h
}

// scaleRowGo multiplies row[j] by s·scale[j]: the integer sums of one row
// of C times the row's and the columns' scales.
func scaleRowGo(row, scale []float32, s float32) {
	row = row[:len(scale)]
	for j, c := range scale {
		row[j] *= s * c
	}
}

// kernelGoInt is the portable integer micro-kernel.
func kernelGoInt(k int, a []int16, lda int, b []int16, c []float32, ldc int, acc bool) {
	b = b[:k*panelWidth]
	for r := 0; r < tileRows; r++ {
		ar := a[r*lda : r*lda+k]
		cr := c[r*ldc : r*ldc+panelWidth]
		var sum [panelWidth]int32
		for kk, x := range ar {
			pair := b[kk/2*2*panelWidth+kk%2:]
			for col := range sum {
				sum[col] += int32(x) * int32(pair[col/8*16+col%8*2])
			}
		}
		for col, s := range sum {
			if acc {
				cr[col] += float32(s)
			} else {
				cr[col] = float32(s)
			}
		}
	}
}
