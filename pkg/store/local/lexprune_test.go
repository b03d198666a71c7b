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
var textPaths = []string{"sparse", "dense", "maxscore"}

func forceTextPath(tb testing.TB, path string) (restore func()) {
	tb.Helper()
	ratio, minPostings, perK := sparseScoreRatio, pruneMinPostings, pruneMinPerK
	restore = func() { sparseScoreRatio, pruneMinPostings, pruneMinPerK = ratio, minPostings, perK }
	switch path {
	case "sparse":
		sparseScoreRatio, pruneMinPostings = 0, 1<<62
	case "dense":
		sparseScoreRatio, pruneMinPostings = 1<<30, 1<<62
	case "maxscore":
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
				got := search("maxscore")
				if len(got) != len(want) {
					t.Fatalf("%s: maxscore %d hits, dense %d", what, len(got), len(want))
				}
				for i := range got {
					if got[i].Memory.ID != want[i].Memory.ID || got[i].Score != want[i].Score {
						t.Fatalf("%s: hit %d is %s %v with maxscore, %s %v dense", what, i,
							got[i].Memory.ID, got[i].Score, want[i].Memory.ID, want[i].Score)
					}
				}
				compareBM25(t, what, got, ref, k)
			}
		}
	}
	// Many of the common terms' postings were skipped, not just scored.
	x := s.partition("a").lex
	qv := lexical.QueryVector(c.vocab[0] + " " + c.vocab[1] + " " + c.vocab[30])
	read := x.maxScore(qv, 10, func(uint32, float32) bool { return true })
	if all := x.postingsOf(qv); 4*read > 3*all {
		t.Errorf("maxscore read %d of %d postings for the top 10", read, all)
	}
}
