package minilm

import (
	"math"
	"sync"
)

// workspace holds one goroutine's activations for a packed batch: the
// sequences' tokens are laid end to end with no padding, so the linear
// layers run on exactly the real tokens and attention runs per sequence.
type workspace struct {
	x, qkv, ctx, tmp, ffn []float32
	// One scratch per goroutine working on this batch.
	attn []attnScratch
	gemm []gemmScratch
}

// grow sizes the workspace for tokens tokens, sequences up to maxLen and
// par goroutines.
func (ws *workspace) grow(tokens, maxLen, par int) {
	ws.x = resize(ws.x, tokens*hiddenSize)
	ws.qkv = resize(ws.qkv, tokens*3*hiddenSize)
	ws.ctx = resize(ws.ctx, tokens*hiddenSize)
	ws.tmp = resize(ws.tmp, tokens*hiddenSize)
	ws.ffn = resize(ws.ffn, tokens*interSize)
	for len(ws.gemm) < par {
		ws.gemm = append(ws.gemm, gemmScratch{})
		ws.attn = append(ws.attn, attnScratch{})
	}
	for i := range par {
		ws.attn[i].grow(maxLen)
	}
}

func resize(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// encode runs the encoder on seqs (token ids, each at most maxTokens long)
// and writes each one's mean-pooled, L2-normalised embedding to out. With
// par > 1 it splits every matrix product and the attention heads across
// par goroutines: for small batches, where streaming the weights from
// memory is the cost, each core then reads only its share of them.
func (e *encoder) encode(ws *workspace, par int, seqs [][]int32, out [][]float32) {
	tokens, maxLen := 0, 0
	for _, s := range seqs {
		tokens += len(s)
		maxLen = max(maxLen, len(s))
	}
	par = max(par, 1)
	ws.grow(tokens, maxLen, par)
	e.embed(ws.x, seqs)
	for i := range e.w.layers {
		e.layer(ws, par, &e.w.layers[i], seqs, tokens)
	}
	t := 0
	for s, ids := range seqs {
		pool(out[s], ws.x[t*hiddenSize:(t+len(ids))*hiddenSize])
		t += len(ids)
	}
}

// embed writes LayerNorm(word + position + token type) for every token.
func (e *encoder) embed(x []float32, seqs [][]int32) {
	w := e.w
	var sum [hiddenSize]float32
	t := 0
	for _, ids := range seqs {
		for pos, id := range ids {
			word := w.word[int(id)*hiddenSize : int(id+1)*hiddenSize]
			position := w.position[pos*hiddenSize : (pos+1)*hiddenSize]
			for i := range sum {
				sum[i] = word[i] + position[i] + w.tokType[i]
			}
			normRow(x[t*hiddenSize:(t+1)*hiddenSize], sum[:], w.embNorm)
			t++
		}
	}
}

// layer runs one transformer block in place on ws.x.
func (e *encoder) layer(ws *workspace, par int, l *layer, seqs [][]int32, tokens int) {
	const qkvWidth = 3 * hiddenSize
	x, qkv, ctx, tmp, ffn := ws.x, ws.qkv, ws.ctx, ws.tmp, ws.ffn
	e.linear(ws, par, l.qkv, tokens, x, qkv)
	addBias(qkv, l.qkv.bias)
	parallel(par, numHeads, func(w, h0, h1 int) {
		t := 0
		for _, ids := range seqs {
			n := len(ids)
			attend(e.ks, &ws.attn[w], &ws.gemm[w], n, h0, h1, qkv[t*qkvWidth:(t+n)*qkvWidth], ctx[t*hiddenSize:(t+n)*hiddenSize])
			t += n
		}
	})
	e.linear(ws, par, l.attnOut, tokens, ctx, tmp)
	residualNorm(x, tmp, l.attnOut.bias, l.attnNorm)
	e.linear(ws, par, l.ffnIn, tokens, x, ffn)
	e.ks.gelu(ffn, l.ffnIn.bias)
	e.linear(ws, par, l.ffnOut, tokens, ffn, tmp)
	residualNorm(x, tmp, l.ffnOut.bias, l.ffnNorm)
}

// linear sets out = in·Wᵀ (bias left to the caller, which fuses it).
func (e *encoder) linear(ws *workspace, par int, l linear, tokens int, in, out []float32) {
	parallel(par, l.out/panelWidth, func(w, p0, p1 int) {
		gemm(e.ks.kern, &ws.gemm[w], tokens, l.in, in, l.in, l.w, p0, p1, out, l.out)
	})
}

// parallel splits [0, n) into par contiguous parts and runs fn on each,
// the last on the calling goroutine.
func parallel(par, n int, fn func(worker, lo, hi int)) {
	if par <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range par - 1 {
		wg.Go(func() { fn(w, w*n/par, (w+1)*n/par) })
	}
	fn(par-1, (par-1)*n/par, n)
	wg.Wait()
}

// pool writes the L2-normalised mean of the rows of x into dst.
func pool(dst, x []float32) {
	var sum [hiddenSize]float64
	for r := 0; r+hiddenSize <= len(x); r += hiddenSize {
		for i, v := range x[r : r+hiddenSize] {
			sum[i] += float64(v)
		}
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	// The mean's 1/n cancels in the normalisation.
	inv := 0.0
	if norm > 0 {
		inv = 1 / math.Sqrt(norm)
	}
	for i, v := range sum {
		dst[i] = float32(v * inv)
	}
}
