package local

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

const ivfTestDim = 48

// ivfConfig indexes from minRows vectors and searches approximately from
// 100 candidate rows.
func ivfConfig(minRows int) Config {
	c := DefaultConfig()
	c.ApproxMinRows, c.IndexMinRows = 100, minRows
	return c
}

// clustered makes seeded unit vectors around a few centres, the shape real
// embeddings have (random unit vectors have none, and no index finds
// their neighbours without scanning most of them).
type ivfCorpus struct {
	centres [][]float32
	r       *rand.Rand
	dim     int
}

func newIVFCorpus(seed uint64, centres int) *ivfCorpus {
	return newIVFCorpusDim(seed, centres, ivfTestDim)
}

func newIVFCorpusDim(seed uint64, centres, dim int) *ivfCorpus {
	c := &ivfCorpus{r: rand.New(rand.NewPCG(seed, 99)), dim: dim}
	for range centres {
		c.centres = append(c.centres, c.unit(nil, 0))
	}
	return c
}

// unit returns a unit vector near base (noise: the spread), or a random
// one when base is nil.
func (c *ivfCorpus) unit(base []float32, noise float64) []float32 {
	v := make([]float32, c.dim)
	var sq float64
	for j := range v {
		x := c.r.NormFloat64()
		if base != nil {
			x = float64(base[j]) + noise*x
		}
		v[j] = float32(x)
		sq += x * x
	}
	for j := range v {
		v[j] = float32(float64(v[j]) / math.Sqrt(sq))
	}
	return v
}

// next is a vector near a random centre.
func (c *ivfCorpus) next() []float32 {
	return c.unit(c.centres[c.r.IntN(len(c.centres))], 0.35/math.Sqrt(float64(c.dim)))
}

// fillClustered upserts n memories numbered from first into tenant, in
// batches, and returns them.
func fillClustered(t *testing.T, s *Store, c *ivfCorpus, tenant string, first, n int) []memory.Memory {
	t.Helper()
	var all []memory.Memory
	for lo := first; lo < first+n; lo += 500 {
		var batch []memory.Memory
		for i := lo; i < min(first+n, lo+500); i++ {
			m := testMemory(tenant, i, c.next())
			m.Subject = "s" + strconv.Itoa(i%4)
			m.Archived = i%11 == 0
			if i%13 == 0 {
				m.Quarantine = "suspect"
			}
			batch = append(batch, m)
		}
		if err := s.Upsert(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		all = append(all, batch...)
	}
	return all
}

// waitIndexed polls until no tenant is training and want tenants have a
// ready index.
func waitIndexed(t *testing.T, s *Store, want int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := s.Stats()
		if st.IndexTraining == 0 && st.Indexed == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index not ready: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkIVF verifies that p's index holds exactly its rows with a vector,
// each once, with consistent positions, in the list whose centroid is
// nearest.
func checkIVF(t *testing.T, p *partition) {
	t.Helper()
	p.mu.RLock()
	defer p.mu.RUnlock()
	x := p.ivf
	if x == nil {
		t.Fatal("no index")
	}
	if x.n != len(p.recs) || len(x.where) != len(p.recs) {
		t.Fatalf("index covers %d rows (%d in where), partition holds %d", x.n, len(x.where), len(p.recs))
	}
	if got := x.rows(); got != p.nvec {
		t.Fatalf("lists hold %d rows, partition has %d vectors", got, p.nvec)
	}
	a := x.newAssigner()
	for i := range p.recs {
		l := x.where[i]
		if !p.hasVec[i] {
			if l != -1 {
				t.Fatalf("row %d without a vector is in list %d", i, l)
			}
			continue
		}
		if l < 0 || x.lists[l][x.pos[i]] != int32(i) {
			t.Fatalf("row %d: list %d position %d does not hold it", i, l, x.pos[i])
		}
		if want := x.nearest(p.vecs.row(i), a); want != l {
			t.Fatalf("row %d is in list %d, its nearest centroid is %d", i, l, want)
		}
	}
}

func partitionT(t *testing.T, s *Store, tenant string) *partition {
	t.Helper()
	p := s.partition(tenant)
	if p == nil {
		t.Fatalf("no partition %s", tenant)
	}
	return p
}

// recallVsExact is the share of the exact top k that Search finds over
// the queries, checking that Search used the index.
func recallVsExact(t *testing.T, s *Store, queries []store.Query) float64 {
	t.Helper()
	found, want := 0, 0
	for _, q := range queries {
		exact, err := s.SearchExact(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range exact {
			want++
			if slices.ContainsFunc(got, func(g store.Hit) bool { return g.Memory.ID == h.Memory.ID }) {
				found++
			}
		}
		for i, h := range got {
			if i > 0 && h.Score > got[i-1].Score {
				t.Fatalf("hits out of order: %v after %v", h.Score, got[i-1].Score)
			}
		}
	}
	if want == 0 {
		t.Fatal("exact search found nothing")
	}
	return float64(found) / float64(want)
}

// usesIVF reports whether a search with f on tenant would probe the index.
func usesIVF(s *Store, tenant string, f store.Filter, k int) bool {
	p := s.partition(tenant)
	p.mu.RLock()
	defer p.mu.RUnlock()
	rf, ok := p.compileFilter(&f)
	return ok && s.useIVF(p, &rf, k)
}

func TestIVFRecallAndFilters(t *testing.T) {
	s := openT(t, t.TempDir(), WithConfig(ivfConfig(1000)))
	defer closeT(t, s)
	c := newIVFCorpus(1, 40)
	fillClustered(t, s, c, "a", 0, 6000)
	other := newIVFCorpus(2, 5)
	fillClustered(t, s, other, "b", 0, 1200)
	waitIndexed(t, s, 2)
	if st := s.Stats(); st.IndexTrainings < 2 {
		t.Fatalf("%d trainings, want at least one per tenant", st.IndexTrainings)
	}
	checkIVF(t, partitionT(t, s, "a"))
	checkIVF(t, partitionT(t, s, "b"))

	filters := map[string]store.Filter{
		"none":        {},
		"subject":     {Subjects: []string{"s1", "s2"}},
		"archived":    {IncludeArchived: true},
		"quarantined": {IncludeQuarantined: true, Subjects: []string{"s3"}},
		"tag":         {Tags: []string{"t0"}},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			if !usesIVF(s, "a", f, 10) {
				t.Fatal("search would not use the index")
			}
			var queries []store.Query
			for range 40 {
				queries = append(queries, store.Query{Tenant: "a", Vector: c.next(), K: 10, Filter: f})
			}
			if r := recallVsExact(t, s, queries); r < 0.95 {
				t.Fatalf("recall@10 %.3f against exact, want >= 0.95", r)
			}
			for _, q := range queries[:10] {
				hits, err := s.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if !matchesFilter(h.Memory, f) || h.Memory.Tenant != "a" {
						t.Fatalf("hit %s (tenant %s) does not pass filter %+v", h.Memory.ID, h.Memory.Tenant, f)
					}
				}
			}
		})
	}
}

// matchesFilter is the filter semantics on the fields these tests set.
func matchesFilter(m memory.Memory, f store.Filter) bool {
	if m.Archived && !f.IncludeArchived || m.Quarantined() && !f.IncludeQuarantined {
		return false
	}
	if len(f.Subjects) > 0 && !slices.Contains(f.Subjects, m.Subject) {
		return false
	}
	return len(f.Tags) == 0 || hasAnyTag(m.Tags, f.Tags)
}

func TestIVFWritesKeepListsExact(t *testing.T) {
	cfg := ivfConfig(800)
	cfg.CompactMinBytes, cfg.CompactRatio = 1, 0.01 // compact after nearly every write
	dir := t.TempDir()
	s := openT(t, dir, WithConfig(cfg))
	c := newIVFCorpus(3, 20)
	mems := fillClustered(t, s, c, "a", 0, 2000)
	waitIndexed(t, s, 1)
	p := partitionT(t, s, "a")
	checkIVF(t, p)
	r := rand.New(rand.NewPCG(4, 4))
	next := len(mems)
	for round := range 30 {
		var batch []memory.Memory
		for range 20 {
			m := mems[r.IntN(len(mems))]
			m.Vector = c.next() // moves it, most likely to another list
			if r.IntN(5) == 0 {
				m.Vector = nil
			}
			batch = append(batch, m)
		}
		for range 10 {
			batch = append(batch, testMemory("a", next, c.next()))
			mems = append(mems, batch[len(batch)-1])
			next++
		}
		if err := s.Upsert(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for range 15 {
			i := r.IntN(len(mems))
			ids = append(ids, mems[i].ID)
			mems = slices.Delete(mems, i, i+1)
		}
		if err := s.Delete(t.Context(), "a", ids...); err != nil {
			t.Fatal(err)
		}
		checkIVF(t, p)
		if round == 15 {
			// Reopen mid-way: the index comes back from the file a
			// compaction or Close wrote, and the replay keeps it exact.
			closeT(t, s)
			s = openT(t, dir, WithConfig(cfg))
			p = partitionT(t, s, "a")
			if p.ivf == nil {
				t.Fatal("reopened without the saved index")
			}
			checkIVF(t, p)
		}
	}
	if s.Stats().Compactions == 0 {
		t.Fatal("no compaction ran")
	}
	closeT(t, s)
}

func TestIVFReopenRestoresWithoutTraining(t *testing.T) {
	dir := t.TempDir()
	cfg := ivfConfig(1000)
	s := openT(t, dir, WithConfig(cfg))
	c := newIVFCorpus(5, 30)
	fillClustered(t, s, c, "a", 0, 3000)
	waitIndexed(t, s, 1)
	q := store.Query{Tenant: "a", Vector: c.next(), K: 10}
	before, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	closeT(t, s)

	s = openT(t, dir, WithConfig(cfg))
	p := partitionT(t, s, "a")
	if p.ivf == nil || p.training {
		t.Fatalf("reopened with index %v, training %v: want the saved index, no training", p.ivf != nil, p.training)
	}
	checkIVF(t, p)
	after, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d hits after reopen, %d before", len(after), len(before))
	}
	for i := range after {
		if after[i].Memory.ID != before[i].Memory.ID || after[i].Score != before[i].Score {
			t.Fatalf("hit %d differs after reopen: %s %v, was %s %v", i, after[i].Memory.ID, after[i].Score,
				before[i].Memory.ID, before[i].Score)
		}
	}
	// Writes after the file's position, replayed after a crash (no Close
	// writes a newer file): the saved index is attached where the log
	// reached its position and the later records keep it exact.
	saved, err := os.ReadFile(filepath.Join(dir, ivfFileName))
	if err != nil {
		t.Fatal(err)
	}
	fillClustered(t, s, c, "a", 5000, 300)
	closeT(t, s)
	if err := os.WriteFile(filepath.Join(dir, ivfFileName), saved, 0o600); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir, WithConfig(cfg))
	defer closeT(t, s)
	p = partitionT(t, s, "a")
	if p.ivf == nil || s.Stats().IndexTrainings != 0 {
		t.Fatal("the older index file was not attached mid-replay")
	}
	checkIVF(t, p)
}

func TestIVFBadIndexFileIsRebuilt(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, path string){
		"corrupt": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x40
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"other position": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := decodeIndexFile(b)
			if err != nil {
				t.Fatal(err)
			}
			f.pos.off += 7
			if err := writeIndexFile(filepath.Dir(path), *f); err != nil {
				t.Fatal(err)
			}
		},
		"truncated": func(t *testing.T, path string) {
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := ivfConfig(600)
			s := openT(t, dir, WithConfig(cfg))
			fillClustered(t, s, newIVFCorpus(6, 10), "a", 0, 1500)
			waitIndexed(t, s, 1)
			closeT(t, s)
			spoil(t, filepath.Join(dir, ivfFileName))
			logs := &logCapture{}
			s, err := Open(dir, WithConfig(cfg), WithLogger(slog.New(logs)))
			if err != nil {
				t.Fatalf("open with a bad index file: %v", err)
			}
			defer closeT(t, s)
			waitIndexed(t, s, 1)
			if s.Stats().IndexTrainings != 1 {
				t.Fatalf("%d trainings after reopen, want 1 (rebuilt)", s.Stats().IndexTrainings)
			}
			checkIVF(t, partitionT(t, s, "a"))
			// The training is counted just before it is logged: poll.
			for deadline := time.Now().Add(30 * time.Second); !slices.ContainsFunc(logs.messages(), func(m string) bool { return m == "local store index trained" }); {
				if time.Now().After(deadline) {
					t.Fatalf("no training logged: %q", logs.messages())
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

func TestIVFCloseDuringTraining(t *testing.T) {
	for round := range 5 {
		dir := t.TempDir()
		s := openT(t, dir, WithConfig(ivfConfig(500)))
		c := newIVFCorpus(uint64(10+round), 10)
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Writes race the training until Close stops them.
			for i := 0; ; i += 50 {
				var batch []memory.Memory
				for j := range 50 {
					batch = append(batch, testMemory("a", i+j, c.next()))
				}
				if err := s.Upsert(context.Background(), batch); err != nil {
					return
				}
			}
		}()
		deadline := time.Now().Add(30 * time.Second)
		for s.Stats().IndexTrainings == 0 && s.Stats().IndexTraining == 0 {
			if time.Now().After(deadline) {
				t.Fatal("training never started")
			}
			time.Sleep(time.Millisecond)
		}
		closeT(t, s)
		<-done
		s = openT(t, dir, WithConfig(ivfConfig(500)))
		if p := s.partition("a"); p != nil {
			p.mu.RLock()
			ready := p.ivf != nil
			p.mu.RUnlock()
			if ready {
				checkIVF(t, p)
			}
		}
		closeT(t, s)
	}
}

func TestIVFDeleteBelowThresholdDropsIndex(t *testing.T) {
	s := openT(t, t.TempDir(), WithConfig(ivfConfig(300)))
	defer closeT(t, s)
	mems := fillClustered(t, s, newIVFCorpus(7, 5), "a", 0, 400)
	waitIndexed(t, s, 1)
	var ids []string
	for _, m := range mems[:380] {
		ids = append(ids, m.ID)
	}
	if err := s.Delete(t.Context(), "a", ids...); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Indexed != 0 {
		t.Fatalf("index kept after the tenant shrank to 20 rows: %+v", st)
	}
	hits, err := s.Search(t.Context(), store.Query{Tenant: "a", Vector: mems[390].Vector, K: 5, Filter: store.Filter{IncludeArchived: true, IncludeQuarantined: true}})
	if err != nil || len(hits) == 0 || hits[0].Memory.ID != mems[390].ID {
		t.Fatalf("search after shrinking: %v, %v", hits, err)
	}
}

// waitBriefly is the poll interval of tests and benchmarks waiting for
// background training.
func waitBriefly() { time.Sleep(5 * time.Millisecond) }
