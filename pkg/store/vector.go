package store

import (
	"fmt"
	"math"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Normalized returns v scaled to unit length, so that cosine similarity is a
// dot product, for every engine alike. An empty vector stays empty (a
// lexical-only memory); non-finite values and the zero vector are invalid.
func Normalized(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, nil
	}
	var ss float64
	for i, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("vector[%d] is not a finite number: %w", i, memory.ErrInvalid)
		}
		ss += float64(f) * float64(f)
	}
	if ss == 0 {
		return nil, fmt.Errorf("vector is all zeros, so it has no direction: %w", memory.ErrInvalid)
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, f := range v {
		out[i] = float32(float64(f) * inv)
	}
	return out, nil
}

// MaxChunkVectors bounds a memory's ChunkVectors: content of at most
// memory.MaxContentChars cut in chunks of a few hundred characters needs
// far fewer.
const MaxChunkVectors = 64

// NormalizedChunks returns m's chunk vectors scaled to unit length, after
// checking that there are at most MaxChunkVectors, each as wide as vec (m's
// normalised Vector), and that a memory without a vector has none.
func NormalizedChunks(vec []float32, chunks [][]float32) ([][]float32, error) {
	if len(chunks) == 0 {
		return nil, nil
	}
	if len(vec) == 0 {
		return nil, fmt.Errorf("chunk_vectors are set but the vector is empty: %w", memory.ErrInvalid)
	}
	if len(chunks) > MaxChunkVectors {
		return nil, fmt.Errorf("chunk_vectors holds %d vectors, over the %d limit: %w", len(chunks), MaxChunkVectors, memory.ErrInvalid)
	}
	out := make([][]float32, len(chunks))
	for i, c := range chunks {
		if len(c) != len(vec) {
			return nil, fmt.Errorf("chunk_vectors[%d] has %d dims, the vector %d: %w", i, len(c), len(vec), memory.ErrInvalid)
		}
		n, err := Normalized(c)
		if err != nil {
			return nil, fmt.Errorf("chunk_vectors[%d]: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}
