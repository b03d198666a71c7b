package local

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// clustered draws unit vectors around a few hundred random centres, as
// sentence embeddings of related texts bunch together: neighbours within a
// cluster score close to each other, which is what makes ranking hard.
type clustered struct {
	r       *rand.Rand
	centres [][]float32
}

func newClustered(seed uint64, dim, clusters int) *clustered {
	c := &clustered{r: rand.New(rand.NewPCG(seed, 1))}
	for range clusters {
		c.centres = append(c.centres, c.around(nil, dim, 0))
	}
	return c
}

// around is a unit vector at noise spread from centre (nil: uniform).
func (c *clustered) around(centre []float32, dim int, noise float64) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := c.r.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + noise*x/math.Sqrt(float64(dim))
		}
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

func (c *clustered) next(dim int) []float32 {
	return c.around(c.centres[c.r.IntN(len(c.centres))], dim, 0.6+c.r.Float64())
}

// TestApproximateRecall fills one tenant above the threshold with
// clustered vectors and checks that the approximate search finds at least
// 95% of the exact top 10, unfiltered and filtered, and that its scores are
// the exact ones.
func TestApproximateRecall(t *testing.T) {
	const n, dim, threshold = 12_000, 384, 5_000
	cfg := DefaultConfig()
	cfg.ApproxMinRows = threshold
	s := openT(t, t.TempDir(), WithConfig(cfg))
	defer closeT(t, s)
	gen := newClustered(21, dim, 300)
	spaces := []string{"default", "work", "home"}
	batch := make([]memory.Memory, 0, 1000)
	for i := range n {
		m := testMemory("a", i, gen.next(dim))
		m.Namespace = spaces[i%3]
		m.Archived = i%17 == 0
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := s.Upsert(t.Context(), batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if p := s.partition("a"); p.quant == nil {
		t.Fatal("no int8 copy above the threshold")
	}
	for _, tc := range []struct {
		name   string
		f      store.Filter
		approx bool
	}{
		{"unfiltered", store.Filter{}, true},
		{"archived too", store.Filter{IncludeArchived: true}, true},
		{"two namespaces", store.Filter{Namespaces: []string{"work", "home"}}, true},
		// One namespace leaves fewer candidates than the threshold: exact.
		{"one namespace", store.Filter{Namespaces: []string{"work"}}, false},
		{"tag", store.Filter{Tags: []string{"t0", "t1"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, want := 0, 0
			for q := range 200 {
				query := store.Query{Tenant: "a", Vector: gen.next(dim), K: 10, Filter: tc.f}
				approx, err := s.Search(t.Context(), query)
				if err != nil {
					t.Fatal(err)
				}
				exact, err := s.SearchExact(t.Context(), query)
				if err != nil {
					t.Fatal(err)
				}
				if len(approx) != 10 || len(exact) != 10 {
					t.Fatalf("query %d: %d approximate and %d exact hits, want 10 each", q, len(approx), len(exact))
				}
				inExact := make(map[string]float64, len(exact))
				for _, h := range exact {
					inExact[h.Memory.ID] = h.Score
				}
				for i, h := range approx {
					if !matches(&h.Memory, &tc.f) {
						t.Fatalf("query %d: hit %s does not pass the filter", q, h.Memory.ID)
					}
					if i > 0 && h.Score > approx[i-1].Score {
						t.Fatalf("query %d: hits out of order", q)
					}
					if exactScore, ok := inExact[h.Memory.ID]; ok {
						found++
						if exactScore != h.Score {
							t.Fatalf("query %d: %s scored %v, exactly %v", q, h.Memory.ID, h.Score, exactScore)
						}
					}
				}
				want += len(exact)
				if !tc.approx && found != want {
					t.Fatalf("query %d: exact path missed hits", q)
				}
			}
			recall := float64(found) / float64(want)
			t.Logf("recall@10 %.4f over %d queries", recall, want/10)
			if recall < 0.95 {
				t.Errorf("recall@10 %.4f, want at least 0.95", recall)
			}
		})
	}
}

// TestQuantCopyFollowsSlab checks that the int8 copy appears at the
// threshold, follows upserts and deletes row for row (across chunks), is
// rebuilt the same on reopen, and goes away well below the threshold.
func TestQuantCopyFollowsSlab(t *testing.T) {
	const dim, threshold = 8, chunkRows + 300
	cfg := DefaultConfig()
	cfg.ApproxMinRows = threshold
	dir := t.TempDir()
	s := openT(t, dir, WithConfig(cfg))
	gen := newClustered(5, dim, 3)
	var ids []string
	upsert := func(from, to int, withVec bool) {
		t.Helper()
		var batch []memory.Memory
		for i := from; i < to; i++ {
			var v []float32
			if withVec {
				v = gen.next(dim)
			}
			batch = append(batch, testMemory("a", i, v))
			ids = append(ids, batch[len(batch)-1].ID)
		}
		if err := s.Upsert(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
	}
	upsert(0, threshold-1, true)
	if s.partition("a").quant != nil {
		t.Fatal("int8 copy below the threshold")
	}
	upsert(threshold, threshold+1, false) // a memory without a vector crosses it
	checkQuant(t, s.partition("a"))
	for i := range 30 {
		upsert(threshold+1+i*50, threshold+1+(i+1)*50, true)
		upsert(i*7, i*7+3, true) // overwrites
		if err := s.Delete(t.Context(), "a", ids[i*40:i*40+45]...); err != nil {
			t.Fatal(err)
		}
		checkQuant(t, s.partition("a"))
	}
	closeT(t, s)
	s = openT(t, dir, WithConfig(cfg))
	defer closeT(t, s)
	checkQuant(t, s.partition("a"))
	p := s.partition("a")
	var drop []string
	for i := range len(p.recs) - threshold/2 + 1 {
		drop = append(drop, recAt(t, p, i).ID)
	}
	if err := s.Delete(t.Context(), "a", drop...); err != nil {
		t.Fatal(err)
	}
	if p.quant != nil {
		t.Fatal("int8 copy kept far below the threshold")
	}
}

// checkQuant compares the int8 copy with a fresh quantisation of the slab.
func checkQuant(t *testing.T, p *partition) {
	t.Helper()
	if p.quant == nil {
		t.Fatal("no int8 copy at or above the threshold")
	}
	fresh := newQuantSlab(&p.vecs)
	var got, want []int8
	if !slices.Equal(p.quant.codes.appendTo(got), fresh.codes.appendTo(want)) || !slices.Equal(p.quant.scale, fresh.scale) {
		t.Fatal("int8 copy differs from the slab's quantisation")
	}
}
