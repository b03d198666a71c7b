package local

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// quantizeRowRef is quantizeRow as first written, with the max builtin.
func quantizeRowRef(dst []int8, v []float32) float32 {
	var peak float32
	for _, x := range v {
		peak = max(peak, x, -x)
	}
	if peak == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / peak
	dst = dst[:len(v)]
	for j, x := range v {
		dst[j] = int8((x*inv + roundMagic) - roundMagic)
	}
	return peak / 127
}

// TestQuantizeRowMatchesReference: the same codes and scale as the first
// version on random, one-signed, zero and tiny vectors.
func TestQuantizeRowMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 2000 {
		dim := 1 + r.IntN(400)
		v := make([]float32, dim)
		for i := range v {
			switch n % 5 {
			case 0:
				v[i] = float32(r.NormFloat64())
			case 1:
				v[i] = float32(r.Float64()) // all positive
			case 2:
				v[i] = -float32(r.Float64()) // all negative
			case 3:
				v[i] = float32(r.NormFloat64()) * 1e-30
			case 4: // zeros, with one spike sometimes
				if i == 0 && n%2 == 0 {
					v[i] = -0.5
				}
			}
		}
		got, want := make([]int8, dim), make([]int8, dim)
		for i := range got {
			got[i], want[i] = 7, 7 // stale codes must be overwritten
		}
		gs, ws := quantizeRow(got, v), quantizeRowRef(want, v)
		if gs != ws || !slices.Equal(got, want) {
			t.Fatalf("vector %d (%d dims): scale %v codes %v, reference %v %v", n, dim, gs, got, ws, want)
		}
	}
}

// BenchmarkQuantizeRow is the per-row cost every reopen pays for each
// vector of a tenant with int8 codes.
func BenchmarkQuantizeRow(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, 384)
	for i := range v {
		v[i] = float32(r.NormFloat64()) / 20
	}
	dst := make([]int8, 384)
	b.Run("current", func(b *testing.B) {
		for b.Loop() {
			quantizeRow(dst, v)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			quantizeRowRef(dst, v)
		}
	})
}
