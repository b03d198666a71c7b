package local

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShortlistKeepsTheBest checks the buffer-and-select shortlist against
// a full sort, with many ties (scores drawn from few values) and without.
func TestShortlistKeepsTheBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name          string
		n, keep, vals int
	}{
		{"distinct", 10_000, 100, 0},
		{"ties", 10_000, 100, 7},
		{"fewer than keep", 50, 100, 0},
		{"keep one", 1_000, 1, 0},
		{"all equal", 1_000, 10, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var all []cand
			s := newShortlist(tt.keep)
			for i := range tt.n {
				score := rng.Float32()
				if tt.vals > 0 {
					score = float32(rng.IntN(tt.vals))
				}
				c := cand{score: score, row: i}
				all = append(all, c)
				s.add(c)
			}
			s.cut()
			want := min(tt.keep, tt.n)
			if len(s.buf) < want {
				t.Fatalf("kept %d, want at least %d", len(s.buf), want)
			}
			scores := func(cs []cand) []float32 {
				out := make([]float32, len(cs))
				for i, c := range cs {
					out[i] = c.score
				}
				slices.Sort(out)
				slices.Reverse(out)
				return out
			}
			// Exactly the candidates scoring at least the keep-th best.
			sorted := scores(all)
			best := sorted
			if want > 0 && want < len(sorted) {
				cut := sorted[want-1]
				best = slices.Clone(sorted[:want])
				for _, v := range sorted[want:] {
					if v == cut {
						best = append(best, v)
					}
				}
			}
			got := scores(s.buf)
			if !slices.Equal(got, best) {
				t.Fatalf("kept scores %v…, want %v…", got[:min(5, len(got))], best[:min(5, len(best))])
			}
			seen := map[int]bool{}
			for _, c := range s.buf {
				if seen[c.row] || all[c.row] != c {
					t.Fatalf("row %d kept twice or altered", c.row)
				}
				seen[c.row] = true
			}
		})
	}
}
