package recall

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestSortResultsMatchesStableSort: sorting indices and moving each result
// once along the permutation's cycles orders results exactly as a stable
// sort of the results themselves, ties (equal scores, equal ids) included.
func TestSortResultsMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 10, 57, 300} {
		for round := range 20 {
			in := make([]Result, n)
			for i := range in {
				// Few distinct scores and ids: many ties of both.
				in[i] = Result{Memory: memory.Memory{ID: fmt.Sprint("m", rng.IntN(5)), Content: fmt.Sprint(i)}, Score: float64(rng.IntN(4)) / 4}
			}
			want := append([]Result(nil), in...)
			sort.SliceStable(want, func(i, j int) bool {
				if want[i].Score != want[j].Score {
					return want[i].Score > want[j].Score
				}
				return want[i].Memory.ID < want[j].Memory.ID
			})
			got := append([]Result(nil), in...)
			sortResults(got)
			for i := range got {
				if got[i].Memory.Content != want[i].Memory.Content {
					t.Fatalf("n %d round %d: position %d holds input %s, want %s", n, round, i, got[i].Memory.Content, want[i].Memory.Content)
				}
			}
		}
	}
}
