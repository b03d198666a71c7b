package minilm

import (
	"math"
)

// workspace holds the activations of one packed batch: the sequences'
// tokens are laid end to end with no padding, so the linear layers run on
// exactly the real tokens and attention runs per sequence.
type workspace struct {
	x, qkv, ctx, tmp, ffn []float32
	starts                []int // first token of each sequence, then the total
	// A linear layer's input rounded to int16 and each row's scale, for
	// integer weights (grown on first use).
	xi      []int16
	xiScale []float32
	// One scratch per goroutine working on the batch.
	attn []attnScratch
	gemm []gemmScratch
}

// grow sizes the workspace for seqs and par goroutines.
func (ws *workspace) grow(seqs [][]int32, par int) {
	ws.starts = ws.starts[:0]
	tokens, maxLen := 0, 0
	for _, s := range seqs {
		ws.starts = append(ws.starts, tokens)
		tokens += len(s)
		maxLen = max(maxLen, len(s))
	}
	ws.starts = append(ws.starts, tokens)
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
// and writes each one's mean-pooled, L2-normalised embedding to out. Every
// stage is split into items that par goroutines share (see forEach): the
// weights are then read from memory once per batch, whatever par is.
func (e *encoder) encode(ws *workspace, par int, seqs [][]int32, out [][]float32) {
	par = max(par, 1)
	ws.grow(seqs, par)
	tokens := ws.starts[len(seqs)]
	forEach(par, len(seqs), func(_, s int) {
		e.embed(ws.x[ws.starts[s]*hiddenSize:], seqs[s])
	})
	for i := range e.w.layers {
		e.layer(ws, par, &e.w.layers[i], len(seqs), tokens)
	}
	forEach(par, len(seqs), func(_, s int) {
		pool(out[s], ws.x[ws.starts[s]*hiddenSize:ws.starts[s+1]*hiddenSize])
	})
}

// embed writes LayerNorm(word + position + token type) for each token of
// one sequence to x.
func (e *encoder) embed(x []float32, ids []int32) {
	w := e.w
	var sum [hiddenSize]float32
	for pos, id := range ids {
		word := w.word[int(id)*hiddenSize : int(id+1)*hiddenSize]
		position := w.position[pos*hiddenSize : (pos+1)*hiddenSize]
		for i := range sum {
			sum[i] = word[i] + position[i] + w.tokType[i]
		}
		normRow(x[pos*hiddenSize:(pos+1)*hiddenSize], sum[:], w.embNorm)
	}
}

// layer runs one transformer block in place on ws.x.
func (e *encoder) layer(ws *workspace, par int, l *layer, nseq, tokens int) {
	x, qkv, ctx, tmp, ffn := ws.x, ws.qkv, ws.ctx, ws.tmp, ws.ffn
	e.linear(ws, par, &l.qkv, tokens, x, qkv, addBias)
	// The FFN's buffer is free until after attention: it holds the heads.
	heads := ffn[:tokens*qkvWidth]
	splitHeads(par, tokens, qkv, heads)
	forEach(par, nseq*numHeads, func(w, i int) {
		s, h := i/numHeads, i%numHeads
		t0, t1 := ws.starts[s], ws.starts[s+1]
		part := func(p int) []float32 {
			at := headBlock(p, h, tokens)
			return heads[at+t0*headDim : at+t1*headDim]
		}
		attend(e.ks, &ws.attn[w], &ws.gemm[w], t1-t0, part(0), part(1), part(2), ctx[t0*hiddenSize+h*headDim:t1*hiddenSize])
	})
	e.linear(ws, par, &l.attnOut, tokens, ctx, tmp, nil)
	e.residualNorm(par, tokens, x, tmp, l.attnOut.bias, l.attnNorm)
	e.linear(ws, par, &l.ffnIn, tokens, x, ffn, e.ks.gelu)
	e.linear(ws, par, &l.ffnOut, tokens, ffn, tmp, nil)
	e.residualNorm(par, tokens, x, tmp, l.ffnOut.bias, l.ffnNorm)
}

// linear sets out = in·Wᵀ, one group of panels (columns) per work item,
// and runs epilogue (bias, activation) on each item's columns while they
// are still in cache; without one the caller adds the bias.
func (e *encoder) linear(ws *workspace, par int, l *linear, tokens int, in, out []float32, epilogue func(x, bias []float32)) {
	xi := e.quantizeInput(ws, par, l, tokens, in)
	panels := l.out / panelWidth
	items := (panels + groupPanels - 1) / groupPanels
	forEach(par, items, func(w, i int) {
		p0, p1 := i*groupPanels, min((i+1)*groupPanels, panels)
		c0, c1 := p0*panelWidth, p1*panelWidth
		switch {
		case l.q != nil:
			gemm(e.ks.kernInt, &ws.gemm[w], tokens, l.in, xi, l.in, l.q, p0, p1, out, l.out)
			for t := 0; t < tokens; t++ {
				e.ks.scaleRow(out[t*l.out+c0:t*l.out+c1], l.scale[c0:c1], ws.xiScale[t])
			}
		case l.h != nil:
			gemm(e.ks.kernF16, &ws.gemm[w], tokens, l.in, in, l.in, l.h, p0, p1, out, l.out)
		default:
			gemm(e.ks.kern, &ws.gemm[w], tokens, l.in, in, l.in, l.w, p0, p1, out, l.out)
		}
		if epilogue == nil {
			return
		}
		for t := 0; t < tokens; t++ {
			epilogue(out[t*l.out+c0:t*l.out+c1], l.bias[c0:c1])
		}
	})
}

// quantizeInput rounds the rows of in to int16 for a layer of integer
// weights, each row's scale in ws.xiScale, and returns them; nil for
// other layers.
func (e *encoder) quantizeInput(ws *workspace, par int, l *linear, tokens int, in []float32) []int16 {
	if l.q == nil {
		return nil
	}
	if cap(ws.xi) < tokens*interSize {
		ws.xi = make([]int16, tokens*interSize)
	}
	ws.xiScale = resize(ws.xiScale, tokens)
	k := l.in
	xi := ws.xi[:tokens*k]
	const rows = 32
	forEach(par, (tokens+rows-1)/rows, func(_, i int) {
		r0, r1 := i*rows, min((i+1)*rows, tokens)
		quantizeRows(e.ks.quantizeRow, xi[r0*k:r1*k], ws.xiScale[r0:r1], in[r0*k:r1*k], k)
	})
	return xi
}

// residualNorm sets x = LayerNorm(y + bias + x) row by row, in blocks of
// rows shared among the goroutines.
func (e *encoder) residualNorm(par, tokens int, x, y, bias []float32, ln layerNorm) {
	const rows = 32
	forEach(par, (tokens+rows-1)/rows, func(_, i int) {
		r0, r1 := i*rows*hiddenSize, min((i+1)*rows, tokens)*hiddenSize
		residualNorm(x[r0:r1], y[r0:r1], bias, ln)
	})
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
