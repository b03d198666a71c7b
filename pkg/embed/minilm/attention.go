package minilm

import (
	"math"
)

// attnScratch holds one head's packed keys and values and its score matrix.
type attnScratch struct {
	keys, values, scores []float32
}

func (a *attnScratch) grow(maxLen int) {
	padded := roundUp(maxLen, panelWidth)
	a.keys = resize(a.keys, padded*headDim)
	a.values = resize(a.values, maxLen*headDim)
	a.scores = resize(a.scores, maxLen*padded)
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// splitHeads copies the fused query/key/value rows of qkv (tokens rows of
// 3·hiddenSize) into dst head by head: part p (0 query, 1 key, 2 value) of
// head h becomes a tokens×headDim block, row-major, at headBlock(p, h,
// tokens). Attention then reads each head's rows contiguously instead of
// 128 bytes out of every 4.6 KB row, which on long sequences missed the
// caches on nearly every row (the rows are further apart than a page,
// where the prefetchers stop). Values are only moved, so the results are
// the same to the bit.
func splitHeads(par, tokens int, qkv, dst []float32) {
	const rows = 32
	forEach(par, (tokens+rows-1)/rows, func(_, i int) {
		for t := i * rows; t < min((i+1)*rows, tokens); t++ {
			row := qkv[t*qkvWidth : (t+1)*qkvWidth]
			for b := range 3 * numHeads {
				at := headBlock(0, b, tokens) + t*headDim
				copy(dst[at:at+headDim], row[b*headDim:(b+1)*headDim])
			}
		}
	})
}

// qkvWidth is the width of a fused query/key/value row.
const qkvWidth = 3 * hiddenSize

// headBlock is where part p, head h of splitHeads' output begins.
func headBlock(p, h, tokens int) int { return (p*numHeads + h) * tokens * headDim }

// attend is one head of self-attention over one sequence of n tokens: q,
// k and v hold the head's query, key and value rows (n×headDim each,
// row-major, as splitHeads lays them out), ctx receives the head's output,
// n rows of headDim at row stride hiddenSize. Every token attends to every
// other token of its own sequence and to nothing else, so no padding mask
// is needed.
func attend(ks kernelSet, a *attnScratch, gs *gemmScratch, n int, q, k, v, ctx []float32) {
	if n == 0 {
		return
	}
	scale := float32(1 / math.Sqrt(headDim))
	padded := roundUp(n, panelWidth)
	keys, values, scores := a.keys[:padded*headDim], a.values[:n*headDim], a.scores[:n*padded]
	// Keys as panels of Kᵀ: scores = Q·Kᵀ is then a plain gemm.
	clear(keys[len(keys)-headDim*panelWidth:]) // the last panel's padding
	for j := 0; j < n; j++ {
		panel := keys[j/panelWidth*headDim*panelWidth:]
		for d, x := range k[j*headDim : (j+1)*headDim] {
			panel[d*panelWidth+j%panelWidth] = x
		}
	}
	gemm(ks.kern, gs, n, headDim, q, headDim, keys, 0, padded/panelWidth, scores, padded)
	for i := 0; i < n; i++ {
		// Softmax over the whole padded row, which suits the vector
		// kernel; the padding gets -Inf, so a weight of e⁻⁸⁷ that
		// vanishes in the sum, and the product below skips it.
		row := scores[i*padded : (i+1)*padded]
		for j := n; j < padded; j++ {
			row[j] = float32(math.Inf(-1))
		}
		ks.softmax(row, scale)
	}
	// Values as two panels of 16 columns, k = n rows each.
	for j := 0; j < n; j++ {
		src := v[j*headDim : (j+1)*headDim]
		copy(values[j*panelWidth:(j+1)*panelWidth], src[:panelWidth])
		copy(values[(n+j)*panelWidth:(n+j+1)*panelWidth], src[panelWidth:])
	}
	gemm(ks.kern, gs, n, n, scores, padded, values, 0, headDim/panelWidth, ctx, hiddenSize)
}
