package minilm

import (
	"fmt"
)

// weights holds the model as float32, linear layers packed for the GEMM
// kernels. Converted once at load; read-only afterwards.
type weights struct {
	word     []float32 // [vocabSize][hiddenSize]
	position []float32 // [maxPositions][hiddenSize]
	tokType  []float32 // [hiddenSize], token type 0 (single sentences only)
	embNorm  layerNorm
	layers   [numLayers]layer
}

type layer struct {
	qkv      linear // query, key and value fused: one pass over the input
	attnOut  linear
	attnNorm layerNorm
	ffnIn    linear
	ffnOut   linear
	ffnNorm  layerNorm
}

type layerNorm struct {
	gamma, beta []float32
}

// linear is y = x·Wᵀ + b with W packed into panels (see gemm.go).
type linear struct {
	w    []float32
	bias []float32
	in   int
	out  int
}

func loadWeights(st *safetensors) (*weights, error) {
	w := &weights{}
	var err error
	get := func(name string, shape ...int) []float32 {
		if err != nil {
			return nil
		}
		var t []float32
		t, err = st.float32s(name, shape...)
		return t
	}
	w.word = get("embeddings.word_embeddings.weight", vocabSize, hiddenSize)
	w.position = get("embeddings.position_embeddings.weight", maxPositions, hiddenSize)
	types := get("embeddings.token_type_embeddings.weight", typeVocab, hiddenSize)
	w.embNorm = layerNorm{
		gamma: get("embeddings.LayerNorm.weight", hiddenSize),
		beta:  get("embeddings.LayerNorm.bias", hiddenSize),
	}
	if err != nil {
		return nil, fmt.Errorf("load embeddings: %w", err)
	}
	w.tokType = types[:hiddenSize]
	for i := range w.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		lin := func(name string, out, in int) linear {
			if err != nil {
				return linear{}
			}
			var wt []float32
			if wt, err = st.packed(p+name+".weight", out, in); err != nil {
				return linear{}
			}
			return linear{w: wt, bias: get(p+name+".bias", out), in: in, out: out}
		}
		norm := func(name string) layerNorm {
			return layerNorm{gamma: get(p+name+".weight", hiddenSize), beta: get(p+name+".bias", hiddenSize)}
		}
		q := lin("attention.self.query", hiddenSize, hiddenSize)
		k := lin("attention.self.key", hiddenSize, hiddenSize)
		v := lin("attention.self.value", hiddenSize, hiddenSize)
		l := &w.layers[i]
		l.qkv = fuse(q, k, v)
		l.attnOut = lin("attention.output.dense", hiddenSize, hiddenSize)
		l.attnNorm = norm("attention.output.LayerNorm")
		l.ffnIn = lin("intermediate.dense", interSize, hiddenSize)
		l.ffnOut = lin("output.dense", hiddenSize, interSize)
		l.ffnNorm = norm("output.LayerNorm")
		if err != nil {
			return nil, fmt.Errorf("load layer %d: %w", i, err)
		}
	}
	return w, nil
}

// fuse stacks linear layers that share an input into one wider layer. As
// packed panels hold whole output columns, stacking is concatenation.
func fuse(ls ...linear) linear {
	f := linear{in: ls[0].in}
	for _, l := range ls {
		f.out += l.out
	}
	f.w = make([]float32, 0, f.out*f.in)
	f.bias = make([]float32, 0, f.out)
	for _, l := range ls {
		f.w = append(f.w, l.w...)
		f.bias = append(f.bias, l.bias...)
	}
	return f
}
