package minilm

import (
	"fmt"
)

// precision is how the linear layers' weights are held: the rest of the
// model (embeddings, norms, biases, activations) is float32 in every case.
type precision int

const (
	// precF32 widens the vendored fp16 weights to float32 at load.
	precF32 precision = iota
	// precF16 keeps the fp16 weights and widens them in the kernel: the
	// same products to the bit from half the bytes.
	precF16
	// precInt rounds each output column to 9 bits and sign with its own
	// scale, each token's activations to 13 bits and sign, and multiplies
	// them in integers (gemm_int.go): approximate.
	precInt
)

func (p precision) String() string {
	switch p {
	case precF32:
		return "f32"
	case precF16:
		return "f16"
	case precInt:
		return "int"
	}
	return fmt.Sprintf("precision(%d)", int(p))
}

// weights holds the model, linear layers packed for the GEMM kernels.
// Converted once at load; read-only afterwards.
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

// linear is y = x·Wᵀ + b with W packed into panels (see gemm.go) in one
// of three formats, the other two nil.
type linear struct {
	w     []float32 // float32 panels,
	h     []uint16  // or fp16 panels,
	q     []int16   // or integer panels in pair layout, column j times scale[j]
	scale []float32
	bias  []float32
	in    int
	out   int
}

// embeddingTables are the input embeddings: the same at every precision
// (a lookup, not a product) and read-only once loaded.
type embeddingTables struct {
	word, position, tokType []float32
	norm                    layerNorm
}

// tensorReader reads float32 tensors until the first error, which it
// keeps: a run of reads is checked once.
type tensorReader struct {
	st  *safetensors
	err error
}

func (r *tensorReader) get(name string, shape ...int) []float32 {
	if r.err != nil {
		return nil
	}
	var t []float32
	t, r.err = r.st.float32s(name, shape...)
	return t
}

// loadEmbeddings reads the input embeddings of st as float32.
func loadEmbeddings(st *safetensors) (*embeddingTables, error) {
	r := &tensorReader{st: st}
	get := r.get
	e := &embeddingTables{}
	e.word = get("embeddings.word_embeddings.weight", vocabSize, hiddenSize)
	e.position = get("embeddings.position_embeddings.weight", maxPositions, hiddenSize)
	types := get("embeddings.token_type_embeddings.weight", typeVocab, hiddenSize)
	e.norm = layerNorm{
		gamma: get("embeddings.LayerNorm.weight", hiddenSize),
		beta:  get("embeddings.LayerNorm.bias", hiddenSize),
	}
	if r.err != nil {
		return nil, fmt.Errorf("load embeddings: %w", r.err)
	}
	e.tokType = types[:hiddenSize]
	return e, nil
}

// loadWeights reads st's layers at prec over the input embeddings emb.
func loadWeights(st *safetensors, emb *embeddingTables, prec precision) (*weights, error) {
	w := &weights{word: emb.word, position: emb.position, tokType: emb.tokType, embNorm: emb.norm}
	r := &tensorReader{st: st}
	get := r.get
	for i := range w.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		lin := func(name string, out, in int) linear {
			if r.err != nil {
				return linear{}
			}
			l := linear{in: in, out: out}
			switch prec {
			case precF16:
				l.h, r.err = st.packedHalf(p+name+".weight", out, in)
			case precInt:
				var wt []float32
				if wt, r.err = st.packed(p+name+".weight", out, in); r.err == nil {
					l.q, l.scale = quantizeColumns(wt, out, in)
				}
			default:
				l.w, r.err = st.packed(p+name+".weight", out, in)
			}
			if r.err != nil {
				return linear{}
			}
			l.bias = get(p+name+".bias", out)
			return l
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
		if r.err != nil {
			return nil, fmt.Errorf("load layer %d: %w", i, r.err)
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
	for _, l := range ls {
		f.w = append(f.w, l.w...)
		f.h = append(f.h, l.h...)
		f.q = append(f.q, l.q...)
		f.scale = append(f.scale, l.scale...)
		f.bias = append(f.bias, l.bias...)
	}
	return f
}
