package local

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDescendingBits: the integer order of descendingBits is the reverse
// order of the floats, across signs, zeros and infinities.
func TestDescendingBits(t *testing.T) {
	vals := []float32{float32(math.Inf(-1)), -3.5, -1, -1e-30, 0, 1e-30, 0.25, 1, 7, float32(math.Inf(1))}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		vals = append(vals, float32(r.NormFloat64()))
	}
	byBits := slices.Clone(vals)
	slices.SortFunc(byBits, func(a, b float32) int { return cmp.Compare(descendingBits(a), descendingBits(b)) })
	byValue := slices.Clone(vals)
	slices.SortFunc(byValue, func(a, b float32) int { return cmp.Compare(b, a) })
	if !slices.Equal(byBits, byValue) {
		t.Errorf("descendingBits order %v, want %v", byBits[:12], byValue[:12])
	}
}
