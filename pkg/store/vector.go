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
