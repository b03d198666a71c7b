package local

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// int8Case draws a query of dim int16 codes, rows of int8 codes (including
// the extremes) and a shuffled row list with repeats.
func int8Case(r *rand.Rand, dim, rows int) ([]int16, []int8, []int32) {
	q := make([]int16, dim)
	for i := range q {
		q[i] = int16(r.IntN(1<<16) - 1<<15)
	}
	codes := make([]int8, dim*rows)
	for i := range codes {
		codes[i] = int8(r.IntN(256) - 128)
	}
	list := make([]int32, rows+rows/2)
	for i := range list {
		list[i] = int32(r.IntN(max(1, rows)))
	}
	if rows == 0 {
		list = nil
	}
	return q, codes, list
}

func checkInt8Kernel(t *testing.T, q []int16, codes []int8, rows []int32) {
	t.Helper()
	want := make([]int32, len(rows))
	got := make([]int32, len(rows))
	dotsInt8Generic(q, codes, rows, want)
	dotsInt8Kernel()(q, codes, rows, got)
	if !slices.Equal(got, want) {
		t.Fatalf("dim %d, %d rows: kernel %v, portable %v", len(q), len(rows), got, want)
	}
	// And the portable kernel against the definition.
	for j, r := range rows {
		var s int32
		for i := range q {
			s += int32(q[i]) * int32(codes[int(r)*len(q)+i])
		}
		if want[j] != s {
			t.Fatalf("dim %d row %d: portable %d, definition %d", len(q), r, want[j], s)
		}
	}
}

// TestDotsInt8Kernel runs the kernel in use against the portable one at
// every width around the 16- and 32-code steps and at common model widths.
func TestDotsInt8Kernel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dims := []int{384, 768, 1024, 1536}
	for d := 1; d <= 70; d++ {
		dims = append(dims, d)
	}
	for _, dim := range dims {
		q, codes, rows := int8Case(r, dim, 7)
		checkInt8Kernel(t, q, codes, rows)
	}
	t.Run("extremes", func(t *testing.T) {
		for _, qv := range []int16{-32768, 32767} {
			for _, cv := range []int8{-128, 127} {
				q := slices.Repeat([]int16{qv}, 100)
				codes := slices.Repeat([]int8{cv}, 300)
				checkInt8Kernel(t, q, codes, []int32{2, 0, 1})
			}
		}
	})
}

func FuzzDotsInt8Kernel(f *testing.F) {
	f.Add(uint64(1), uint8(33), uint8(5))
	f.Add(uint64(7), uint8(0), uint8(0))
	f.Add(uint64(9), uint8(255), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, dim, rows uint8) {
		q, codes, list := int8Case(rand.New(rand.NewPCG(seed, 3)), int(dim)+1, int(rows))
		checkInt8Kernel(t, q, codes, list)
	})
}

func TestQuantizeRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float32
	}{
		{"zeros", []float32{0, 0, 0}},
		{"empty", nil},
		{"unit", []float32{0.6, -0.8, 0}},
		{"seeded", seededVector(3, 384)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := slices.Repeat([]int8{9}, max(3, len(tc.v)))[:max(3, len(tc.v))]
			scale := quantizeRow(dst, tc.v)
			var peak float32
			for _, x := range tc.v {
				peak = max(peak, x, -x)
			}
			if peak == 0 {
				if scale != 0 || slices.ContainsFunc(dst, func(c int8) bool { return c != 0 }) {
					t.Fatalf("no vector: scale %v, codes %v", scale, dst)
				}
				return
			}
			for i, x := range tc.v {
				if d := float32(dst[i])*scale - x; d > scale/2*1.0001 || d < -scale/2*1.0001 {
					t.Errorf("component %d: %v decodes to %v, off by more than half a step %v", i, x, float32(dst[i])*scale, scale)
				}
			}
		})
	}
}

func BenchmarkDotsInt8_384(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	q, codes, _ := int8Case(r, 384, 4096)
	rows := make([]int32, approxBlock)
	for i := range rows {
		rows[i] = int32(i * 13 % 4096)
	}
	out := make([]int32, len(rows))
	for _, k := range []struct {
		name string
		fn   func([]int16, []int8, []int32, []int32)
	}{{"kernel", dotsInt8Kernel()}, {"generic", dotsInt8Generic}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				k.fn(q, codes, rows, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
		})
	}
}
