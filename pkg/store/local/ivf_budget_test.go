package local

import (
	"runtime"
	"testing"

	"github.com/recollect-dev/recollect/pkg/store"
)

func TestProbeLimitsDone(t *testing.T) {
	lim := probeLimits{minProbe: 4, wantPass: 100, budget: 1000}
	for _, tc := range []struct {
		name                  string
		lists, passed, scored int
		want                  bool
	}{
		{"nothing yet", 0, 0, 0, false},
		{"enough lists, too few passed", 9, 99, 99, false},
		{"enough lists and passed", 4, 100, 100, true},
		{"few lists, under budget", 3, 999, 999, false},
		{"few lists, budget spent", 1, 1000, 1000, true},
		{"budget spent scoring first", 1, 100, 1000, true},
		{"budget spent, too few passed", 1, 99, 5000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lim.done(tc.lists, tc.passed, tc.scored); got != tc.want {
				t.Fatalf("done(%d, %d, %d) = %v, want %v", tc.lists, tc.passed, tc.scored, got, tc.want)
			}
		})
	}
}

// TestIVFProbeBudget checks on a real index that a probe scores no more
// than its budget (plus one block per worker), that a selective filter
// still gets ivfPassFactor times the shortlist (the budget never cuts it
// short), and that the hits stay exact and filtered.
func TestIVFProbeBudget(t *testing.T) {
	s := openT(t, t.TempDir(), WithConfig(ivfConfig(1000)))
	defer closeT(t, s)
	c := newIVFCorpus(5, 30)
	fillClustered(t, s, c, "a", 0, 8000)
	waitIndexed(t, s, 1)
	p := partitionT(t, s, "a")
	filters := map[string]store.Filter{
		"none":      {},
		"subject":   {Subjects: []string{"s1"}},
		"selective": {Subjects: []string{"s2"}, Tags: []string{"t0"}},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			for range 20 {
				vec := c.next()
				p.mu.RLock()
				rf, ok := p.compileFilter(&f)
				if !ok {
					p.mu.RUnlock()
					t.Fatal("filter does not compile")
				}
				x := p.ivf
				keep := approxKeep(10)
				_, st := p.probeIVF(quantizeQuery(vec), keep, &rf, false)
				minProbe := x.minProbe()
				expect := minProbe * max(1, x.n/x.nlist)
				budget := max(ivfPassFactor*keep, ivfBudgetFactor*expect)
				passing := 0
				for i := range p.recs {
					if p.hasVec[i] && p.match(&rf, i) {
						passing++
					}
				}
				p.mu.RUnlock()
				if bound := max(budget, ivfPassFactor*keep) + runtime.GOMAXPROCS(0)*approxBlock; st.scored > bound {
					t.Fatalf("scored %d rows (%d lists), budget %d", st.scored, st.lists, budget)
				}
				if st.scored < min(passing, ivfPassFactor*keep) {
					t.Fatalf("scored %d rows, want at least %d (%d pass the filter)", st.scored,
						min(passing, ivfPassFactor*keep), passing)
				}
				if st.lists < x.nlist && st.scored < ivfPassFactor*keep {
					t.Fatalf("stopped after %d of %d lists with %d rows passed", st.lists, x.nlist, st.scored)
				}
				hits, err := s.Search(t.Context(), store.Query{Tenant: "a", Vector: vec, K: 10, Filter: f})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if !matchesFilter(h.Memory, f) {
						t.Fatalf("hit %s does not pass the filter", h.Memory.ID)
					}
					nq, _ := normalized(vec)
					nm, _ := normalized(h.Memory.Vector)
					if d := h.Score - float64(dotGeneric(nq, nm)); d > 1e-5 || d < -1e-5 {
						t.Fatalf("hit %s scored %v, exact cosine differs by %v", h.Memory.ID, h.Score, d)
					}
				}
			}
		})
	}
}
