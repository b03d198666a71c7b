package local

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRowStoreMatchesFlatSlice runs random pushes, writes, moves and
// truncations across chunk boundaries against a plain slice, on the heap
// and with chunks mapped from a file (at most three mappings, so that
// some chunks fall back to the heap); truncations are frequent (the store
// stays small) or rare (it grows over several chunks).
func TestRowStoreMatchesFlatSlice(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testRowStoreMatchesFlatSlice(t, nil) })
	t.Run("heap_growing", func(t *testing.T) { testRowStoreMatchesFlatSlice(t, nil, 5) })
	t.Run("mapped", func(t *testing.T) {
		skipUnlessMapped(t)
		c := openVecCache(t.TempDir(), discardLogger(), 0)
		c.maxMaps = 3
		testRowStoreMatchesFlatSlice(t, c)
		testRowStoreMatchesFlatSlice(t, c, 5)
		if got := c.maps.Load(); got != 0 {
			t.Errorf("%d mappings left after release", got)
		}
		if c.fallbacks.Load() == 0 || c.mapped.Load() != 0 {
			t.Errorf("%d fallbacks, %d bytes mapped at the end; want some, 0", c.fallbacks.Load(), c.mapped.Load())
		}
	})
}

// testRowStoreMatchesFlatSlice truncates at truncPer10k[0] steps in
// 10,000 (2,000 by default).
func testRowStoreMatchesFlatSlice(t *testing.T, c *vecCache, truncPer10k ...int) {
	trunc := 2000
	if len(truncPer10k) > 0 {
		trunc = truncPer10k[0]
	}
	for _, dim := range []int{1, 3, 16} {
		r := rand.New(rand.NewPCG(uint64(dim), 9))
		s := newRowStore[float32](dim)
		s.file = c.file()
		var flat []float32
		for step := range 20_000 {
			switch op := r.IntN(10_000); {
			case op < 6000 || s.n == 0:
				i := s.push()
				if i != len(flat)/dim {
					t.Fatalf("dim %d step %d: push returned row %d, want %d", dim, step, i, len(flat)/dim)
				}
				row := s.row(i)
				flat = append(flat, make([]float32, dim)...)
				for j := range row {
					if row[j] != 0 {
						t.Fatalf("dim %d step %d: pushed row not zero", dim, step)
					}
					row[j] = float32(step*dim + j)
					flat[i*dim+j] = row[j]
				}
			case op < 10_000-trunc:
				dst, src := r.IntN(s.n), r.IntN(s.n)
				copy(s.row(dst), s.row(src))
				copy(flat[dst*dim:(dst+1)*dim], flat[src*dim:(src+1)*dim])
			default:
				n := max(0, s.n-r.IntN(3*chunkRows/2))
				s.truncate(n)
				flat = flat[:n*dim]
			}
			if s.n != len(flat)/dim {
				t.Fatalf("dim %d step %d: %d rows, want %d", dim, step, s.n, len(flat)/dim)
			}
		}
		if got := s.appendTo(nil); !slices.Equal(got, flat) {
			t.Fatalf("dim %d: rows differ from the flat slice", dim)
		}
		if want := (s.n + chunkMask) >> chunkShift; len(s.chunks) != want {
			t.Fatalf("dim %d: %d chunks for %d rows, want %d", dim, len(s.chunks), s.n, want)
		}
		s.release()
	}
}
