// Package minilm is the built-in embedding model: all-MiniLM-L6-v2 (384
// dimensions, Apache-2.0) with its weights inside the binary, a WordPiece
// tokenizer identical to the reference one, and a pure-Go BERT forward pass
// whose matrix products run on an AVX2/FMA kernel where the CPU has one.
// The linear layers keep the vendored fp16 weights, widened to float32 as
// the kernel loads them: the same results as float32 weights, from half
// the bytes.
package minilm

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/embed"
)

// ModelName is the name Model reports, as recorded with each vector.
const ModelName = "all-MiniLM-L6-v2"

// Dim is the embedding width.
const Dim = hiddenSize

var _ embed.Embedder = (*Model)(nil)

// Model embeds text with all-MiniLM-L6-v2. It is immutable after Load and
// safe for concurrent use; load it once and share it (it holds ~70 MB).
type Model struct {
	tok        *tokenizer
	enc        *encoder
	workspaces sync.Pool // *workspace, reused across calls
}

// encoder is the BERT forward pass over read-only weights.
type encoder struct {
	w  *weights
	ks kernelSet
}

// defaultPrecision is the weight format Load uses.
const defaultPrecision = precF16

// Option changes how Load builds the model.
type Option func(*precision)

// IntegerProducts makes the linear layers multiply in integers: weights
// rounded to 9 bits and sign per output column, activations to 13 bits and
// sign per token (see gemm_int.go). Measured against the default: a short
// query costs 13–20% less CPU time and a batch of short texts 25–30% less;
// the vectors are within cosine 0.9995 of the exact ones (0.9999 measured,
// TestIntAccuracy) and the reference cosines hold to ±0.001, but single
// components differ from the reference forward pass by up to ~5e-4, more
// than TestEmbedMatchesReferenceVectors allows, so it is not the default.
func IntegerProducts() Option {
	return func(p *precision) { *p = precInt }
}

// Load builds the model from the embedded files. By default the products
// are exact: float32 arithmetic on the vendored fp16 weights.
func Load(opts ...Option) (*Model, error) {
	prec := defaultPrecision
	for _, o := range opts {
		o(&prec)
	}
	return load(kernels()[0], prec)
}

func load(ks kernelSet, prec precision) (*Model, error) {
	if err := checkConfig([]byte(configFile)); err != nil {
		return nil, fmt.Errorf("load %s: %w", ModelName, err)
	}
	shared, err := sharedParts()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", ModelName, err)
	}
	w, err := loadWeights(shared.st, shared.emb, prec)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", ModelName, err)
	}
	return &Model{tok: shared.tok, enc: &encoder{w: w, ks: ks}}, nil
}

// modelParts are what every Model of a process shares, whatever its
// precision: the tokenizer, the parsed weights file and the input
// embeddings (47 MB as float32), all read-only once built. A process
// embedding documents exactly and queries with integer products holds
// them once.
type modelParts struct {
	tok *tokenizer
	st  *safetensors
	emb *embeddingTables
}

var sharedParts = sync.OnceValues(func() (modelParts, error) {
	tok, err := newTokenizer([]byte(tokenizerFileData))
	if err != nil {
		return modelParts{}, err
	}
	st, err := parseSafetensors(weightsFile)
	if err != nil {
		return modelParts{}, err
	}
	emb, err := loadEmbeddings(st)
	if err != nil {
		return modelParts{}, err
	}
	return modelParts{tok: tok, st: st, emb: emb}, nil
})

// Dim returns the embedding width, 384.
func (m *Model) Dim() int { return Dim }

// Model returns "all-MiniLM-L6-v2".
func (m *Model) Model() string { return ModelName }

// Tokens returns how many tokens text is embedded as, [CLS] and [SEP]
// included, after truncation to 256: the input count for usage records.
func (m *Model) Tokens(text string) int { return len(m.tok.encode(text)) }

// Fits reports whether the model reads text whole: its tokens, special ones
// included, stay under the 256 the model reads (one under, so that a text
// cut at exactly 256 is not taken for one that fits).
func (m *Model) Fits(text string) bool {
	// A token covers at least one character, so a text of fewer
	// characters than the model reads, besides [CLS] and [SEP], fits
	// without being tokenized.
	if len(text) < maxTokens-2 || utf8.RuneCountInString(text) < maxTokens-2 {
		return true
	}
	return len(m.tok.encode(text)) < maxTokens
}
