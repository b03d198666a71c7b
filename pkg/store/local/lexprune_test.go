package local

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lexical"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// textPaths name the ways SearchText can score a query; forceTextPath
// makes it take one and returns the function that undoes it.
// "maxscore" uses small windows, so that the essential terms change often
// even in small tests.
var textPaths = []string{"sparse", "dense", "maxscore", "maxscore-wide"}

func forceTextPath(tb testing.TB, path string) (restore func()) {
	tb.Helper()
	ratio, minPostings, perK, window := sparseScoreRatio, pruneMinPostings, pruneMinPerK, pruneWindow
	restore = func() {
		sparseScoreRatio, pruneMinPostings, pruneMinPerK, pruneWindow = ratio, minPostings, perK, window
	}
	switch path {
	case "sparse":
		sparseScoreRatio, pruneMinPostings = 0, 1<<62
	case "dense":
		sparseScoreRatio, pruneMinPostings = 1<<30, 1<<62
	case "maxscore":
		pruneMinPostings, pruneMinPerK, pruneWindow = 0, 0, 128
	case "maxscore-wide":
		pruneMinPostings, pruneMinPerK = 0, 0
	default:
		tb.Fatalf("unknown text path %q", path)
	}
	return restore
}

// TestSearchTextPathsAgree checks that MaxScore returns exactly what
// scoring every posting does (same hits, order and float32 scores) on
// documents sharing a few common terms, many of them tied, for k from 1 to
// more than the matches, with selective filters, and after deletes.
func TestSearchTextPathsAgree(t *testing.T) {
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	ctx := t.Context()
	c := newTextCorpus(11, 60) // few words: every document shares some
	rng := rand.New(rand.NewPCG(5, 6))
	var texts []string
	var mems []memory.Memory
	for i := range 3000 {
		m := testMemory("a", i, nil)
		if i%5 == 0 && len(texts) > 0 {
			m.Content = texts[rng.IntN(len(texts))] // a repeat: tied scores
		} else {
			m.Content = c.sentence()
			texts = append(texts, m.Content)
		}
		m.Archived = rng.IntN(8) == 0
		if rng.IntN(40) == 0 {
			m.Tags = append(m.Tags, "rare")
		}
		mems = append(mems, m)
	}
	if err := s.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	var gone []string
	for i := 0; i < len(mems); i += 7 {
		gone = append(gone, mems[i].ID)
	}
	if err := s.Delete(ctx, "a", gone...); err != nil {
		t.Fatal(err)
	}
	live := slices.DeleteFunc(slices.Clone(mems), func(m memory.Memory) bool { return slices.Contains(gone, m.ID) })

	queries := []string{c.vocab[0], c.vocab[0] + " " + c.vocab[1], texts[3]}
	for range 12 {
		queries = append(queries, c.query())
	}
	filters := []store.Filter{{}, {IncludeArchived: true}, {Tags: []string{"rare"}}, {Tags: []string{"nobody"}}}
	for _, q := range queries {
		for fi, f := range filters {
			ref := referenceBM25(live, q, &f)
			for _, k := range []int{1, 10, 200, 5000} {
				what := fmt.Sprintf("%q filter %d k=%d", q, fi, k)
				search := func(path string) []store.Hit {
					defer forceTextPath(t, path)()
					hits, err := s.SearchText(ctx, store.TextQuery{Tenant: "a", Text: q, K: k, Filter: f})
					if err != nil {
						t.Fatal(err)
					}
					return hits
				}
				want := search("dense")
				for _, path := range []string{"maxscore", "maxscore-wide"} {
					got := search(path)
					if len(got) != len(want) {
						t.Fatalf("%s: %s %d hits, dense %d", what, path, len(got), len(want))
					}
					for i := range got {
						if got[i].Memory.ID != want[i].Memory.ID || got[i].Score != want[i].Score {
							t.Fatalf("%s: hit %d is %s %v with %s, %s %v dense", what, i,
								got[i].Memory.ID, got[i].Score, path, want[i].Memory.ID, want[i].Score)
						}
					}
				}
				compareBM25(t, what, want, ref, k)
			}
		}
	}
}

// TestMaxScoreSkipsCommonTerms checks that pruning does skip postings: a
// term every document has cannot lift a document without the rare term
// into the top k, so its list is only searched for the rare term's
// documents. The rare term is spread out, or bunched with long gaps
// between, so that whole windows go by without a candidate; the top k are
// those of scoring every posting.
func TestMaxScoreSkipsCommonTerms(t *testing.T) {
	const n, common, rare = 20_000, 1, 2
	for name, hasRare := range map[string]func(d int) bool{
		"spread":  func(d int) bool { return d%100 == 0 },
		"bunched": func(d int) bool { return d < 100 || d >= 15_000 && d < 16_200 || d > n-10 },
	} {
		x := newLexIndex()
		for d := range n {
			v := lexical.SparseVector{Indices: []uint32{common}, Values: []float32{float32(1 + d%7)}}
			if hasRare(d) {
				v = lexical.SparseVector{Indices: []uint32{common, rare}, Values: []float32{float32(1 + d%7), 1}}
			}
			x.add(d, v)
		}
		q := lexical.SparseVector{Indices: []uint32{common, rare}, Values: []float32{1, 1}}
		all := make([]float32, n)
		x.score(q, all)
		for _, k := range []int{1, 10, 100} {
			got := map[uint32]float32{}
			read := x.maxScore(q, k, func(uint32) bool { return true }, func(d uint32, s float32) { got[d] = s })
			want := make([]float32, 0, n)
			for d, s := range all {
				if g, ok := got[uint32(d)]; ok && g != s {
					t.Fatalf("%s k=%d: doc %d scores %v, want %v", name, k, d, g, s)
				}
				want = append(want, s)
			}
			slices.Sort(want)
			kth := want[n-k]
			for d, s := range all {
				if _, ok := got[uint32(d)]; s >= kth && !ok {
					t.Fatalf("%s k=%d: doc %d (score %v, k-th best %v) not added", name, k, d, s, kth)
				}
			}
			if total := x.postingsOf(q); 2*read > total {
				t.Errorf("%s k=%d: read %d of %d postings", name, k, read, total)
			}
		}
	}
}
