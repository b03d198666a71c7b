package minilm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// attendStrided is attention as it ran before splitHeads: head h read
// straight from the fused query/key/value rows of one sequence. It is the
// reference the head-split attention must match to the bit.
func attendStrided(ks kernelSet, a *attnScratch, gs *gemmScratch, n, h int, qkv, ctx []float32) {
	const (
		kOff = hiddenSize
		vOff = 2 * hiddenSize
	)
	scale := float32(1 / math.Sqrt(headDim))
	padded := roundUp(n, panelWidth)
	keys, values, scores := a.keys[:padded*headDim], a.values[:n*headDim], a.scores[:n*padded]
	col := h * headDim
	clear(keys)
	for j := 0; j < n; j++ {
		panel := keys[j/panelWidth*headDim*panelWidth:]
		src := qkv[j*qkvWidth+kOff+col : j*qkvWidth+kOff+col+headDim]
		for d, v := range src {
			panel[d*panelWidth+j%panelWidth] = v
		}
	}
	gemm(ks.kern, gs, n, headDim, qkv[col:], qkvWidth, keys, 0, padded/panelWidth, scores, padded)
	for i := 0; i < n; i++ {
		row := scores[i*padded : (i+1)*padded]
		for j := n; j < padded; j++ {
			row[j] = float32(math.Inf(-1))
		}
		ks.softmax(row, scale)
	}
	for j := 0; j < n; j++ {
		src := qkv[j*qkvWidth+vOff+col : j*qkvWidth+vOff+col+headDim]
		copy(values[j*panelWidth:(j+1)*panelWidth], src[:panelWidth])
		copy(values[(n+j)*panelWidth:(n+j+1)*panelWidth], src[panelWidth:])
	}
	gemm(ks.kern, gs, n, n, scores, padded, values, 0, headDim/panelWidth, ctx[col:], hiddenSize)
}

// TestSplitHeadsAttentionMatchesStrided runs one layer's attention over
// sequences of mixed lengths (one token, partial tiles and panels, full
// 256-token ones) both ways, with every kernel set, and wants the same
// bits.
func TestSplitHeadsAttentionMatchesStrided(t *testing.T) {
	lengths := []int{1, 5, 6, 7, 16, 17, 33, 100, 256, 256, 2}
	starts := []int{0}
	for _, n := range lengths {
		starts = append(starts, starts[len(starts)-1]+n)
	}
	tokens := starts[len(lengths)]
	r := rand.New(rand.NewPCG(1, 2))
	qkv := make([]float32, tokens*qkvWidth)
	for i := range qkv {
		qkv[i] = float32(r.NormFloat64() * 2)
	}
	for _, ks := range kernels() {
		t.Run(ks.name, func(t *testing.T) {
			var a attnScratch
			var gs gemmScratch
			a.grow(256)
			want := make([]float32, tokens*hiddenSize)
			for s, n := range lengths {
				t0 := starts[s]
				for h := range numHeads {
					attendStrided(ks, &a, &gs, n, h, qkv[t0*qkvWidth:], want[t0*hiddenSize:])
				}
			}
			heads := make([]float32, tokens*qkvWidth)
			splitHeads(3, tokens, qkv, heads)
			got := make([]float32, tokens*hiddenSize)
			for s, n := range lengths {
				t0, t1 := starts[s], starts[s+1]
				for h := range numHeads {
					part := func(p int) []float32 {
						at := headBlock(p, h, tokens)
						return heads[at+t0*headDim : at+t1*headDim]
					}
					attend(ks, &a, &gs, n, part(0), part(1), part(2), got[t0*hiddenSize+h*headDim:t1*hiddenSize])
				}
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("token %d dim %d: split heads %g, strided %g", i/hiddenSize, i%hiddenSize, got[i], want[i])
				}
			}
		})
	}
}

// BenchmarkAttention256 is one layer's attention over four 256-token
// sequences, from the fused rows (strided, as before) and through
// splitHeads (the split included), one goroutine.
func BenchmarkAttention256(b *testing.B) {
	const n, seqs = 256, 4
	tokens := n * seqs
	r := rand.New(rand.NewPCG(1, 2))
	qkv := make([]float32, tokens*qkvWidth)
	for i := range qkv {
		qkv[i] = float32(r.NormFloat64())
	}
	ks := kernels()[0]
	var a attnScratch
	var gs gemmScratch
	a.grow(n)
	ctx := make([]float32, tokens*hiddenSize)
	b.Run("strided", func(b *testing.B) {
		for b.Loop() {
			for s := range seqs {
				for h := range numHeads {
					attendStrided(ks, &a, &gs, n, h, qkv[s*n*qkvWidth:], ctx[s*n*hiddenSize:])
				}
			}
		}
	})
	heads := make([]float32, tokens*qkvWidth)
	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			splitHeads(1, tokens, qkv, heads)
			for s := range seqs {
				for h := range numHeads {
					at := func(p int) []float32 { o := headBlock(p, h, tokens) + s*n*headDim; return heads[o : o+n*headDim] }
					attend(ks, &a, &gs, n, at(0), at(1), at(2), ctx[s*n*hiddenSize+h*headDim:(s+1)*n*hiddenSize])
				}
			}
		}
	})
}
