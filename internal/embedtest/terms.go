// Package embedtest provides a small deterministic embedder for tests that
// need rankings without loading the built-in model.
package embedtest

import (
	"context"
	"hash/fnv"
	"math"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// TermDim is the width of Terms' vectors.
const TermDim = 256

// Terms is a real, if crude, embedder: a normalised bag of hashed lexical
// terms, so texts sharing terms are close.
type Terms struct{}

// Dim implements embed.Embedder.
func (Terms) Dim() int { return TermDim }

// Model implements embed.Embedder.
func (Terms) Model() string { return "terms" }

// Embed implements embed.Embedder.
func (Terms) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, TermDim)
		for _, term := range lexical.Terms(t) {
			h := fnv.New32a()
			h.Write([]byte(term))
			v[h.Sum32()%TermDim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}
