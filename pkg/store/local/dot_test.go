package local

import (
	"math"
	"testing"
)

// TestDotKernels checks the kernel in use against the portable one and a
// float64 reference, at every length around the unrolling boundaries.
func TestDotKernels(t *testing.T) {
	kernel := dotKernel()
	for n := 0; n <= 80; n++ {
		for seed := range 3 {
			a, b := seededVector(uint64(n*10+seed), n), seededVector(uint64(n*10+seed+5), n)
			var ref float64
			for i := range a {
				ref += float64(a[i]) * float64(b[i])
			}
			tol := 1e-5 * (1 + float64(n))
			if got := kernel(a, b); math.Abs(float64(got)-ref) > tol {
				t.Errorf("n=%d: kernel %v, reference %v", n, got, ref)
			}
			if got := dotGeneric(a, b); math.Abs(float64(got)-ref) > tol {
				t.Errorf("n=%d: generic %v, reference %v", n, got, ref)
			}
		}
	}
	// Slices inside a larger slab must not read past their own end.
	slab := seededVector(9, 3*384)
	row := slab[384:768:768]
	want := dotGeneric(row, row)
	if got := kernel(row, slab[384:768]); math.Abs(float64(got-want)) > 1e-3 {
		t.Errorf("slab row: kernel %v, generic %v", got, want)
	}
}

func BenchmarkDot384(b *testing.B) {
	x, y := seededVector(1, 384), seededVector(2, 384)
	for _, k := range []struct {
		name string
		fn   func(a, b []float32) float32
	}{{"kernel", dotKernel()}, {"generic", dotGeneric}} {
		b.Run(k.name, func(b *testing.B) {
			var sink float32
			for b.Loop() {
				sink += k.fn(x, y)
			}
			_ = sink
		})
	}
}
