package local

import (
	"fmt"
	"math"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// normalized returns v scaled to unit length, so that cosine similarity is a
// dot product. An empty vector stays empty (a lexical-only memory).
func normalized(v []float32) ([]float32, error) {
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

// dotGeneric is the portable inner product of two vectors of equal length.
// Eight accumulators let the CPU overlap the multiply-adds.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}
