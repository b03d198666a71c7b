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

// attend is head h of self-attention over one sequence of n tokens: qkv
// holds the sequence's fused query/key/value rows, ctx receives the head's
// output in its columns. Every token attends to every other token of its own
// sequence and to nothing else, so no padding mask is needed.
func attend(ks kernelSet, a *attnScratch, gs *gemmScratch, n, h int, qkv, ctx []float32) {
	const (
		width = 3 * hiddenSize
		kOff  = hiddenSize
		vOff  = 2 * hiddenSize
	)
	scale := float32(1 / math.Sqrt(headDim))
	padded := roundUp(n, panelWidth)
	keys, values, scores := a.keys[:padded*headDim], a.values[:n*headDim], a.scores[:n*padded]
	col := h * headDim
	// Keys as panels of Kᵀ: scores = Q·Kᵀ is then a plain gemm.
	clear(keys)
	for j := 0; j < n; j++ {
		panel := keys[j/panelWidth*headDim*panelWidth:]
		src := qkv[j*width+kOff+col : j*width+kOff+col+headDim]
		for d, v := range src {
			panel[d*panelWidth+j%panelWidth] = v
		}
	}
	gemm(ks.kern, gs, n, headDim, qkv[col:], width, keys, 0, padded/panelWidth, scores, padded)
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
		src := qkv[j*width+vOff+col : j*width+vOff+col+headDim]
		copy(values[j*panelWidth:(j+1)*panelWidth], src[:panelWidth])
		copy(values[(n+j)*panelWidth:(n+j+1)*panelWidth], src[panelWidth:])
	}
	gemm(ks.kern, gs, n, n, scores, padded, values, 0, headDim/panelWidth, ctx[col:], hiddenSize)
}
