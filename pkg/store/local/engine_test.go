package local

import (
	"errors"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/spf13/pflag"
)

func TestSearchTiesBreakByID(t *testing.T) {
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	var ids []string
	var batch []memory.Memory
	for i := range 9 {
		m := testMemory("a", i, []float32{1, 2, 3, 4})
		batch = append(batch, m)
		ids = append(ids, m.ID)
	}
	slices.Reverse(batch)
	if err := s.Upsert(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	// Deleting moves rows around; the order must not care.
	if err := s.Delete(t.Context(), "a", ids[0], ids[4]); err != nil {
		t.Fatal(err)
	}
	rest := slices.Clone(ids)
	rest = slices.Delete(rest, 4, 5)
	rest = slices.Delete(rest, 0, 1)
	slices.Sort(rest)
	for _, k := range []int{1, 3, 7} {
		hits, err := s.Search(t.Context(), store.Query{Tenant: "a", Vector: []float32{4, 3, 2, 1}, K: k})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.Memory.ID
		}
		if !slices.Equal(got, rest[:k]) {
			t.Errorf("k=%d: tied hits %v, want the smallest ids in order %v", k, got, rest[:k])
		}
	}
}

// TestParallelScanMatchesSerial forces the multi-goroutine scan and checks
// it returns exactly what one goroutine does, and what float64 math ranks.
func TestParallelScanMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	const n, dim = 1500, 24
	var batch []memory.Memory
	for i := range n {
		v := seededVector(uint64(i%1200), dim) // 300 exact duplicates make ties
		m := testMemory("a", i, v)
		m.Archived = i%11 == 0
		batch = append(batch, m)
	}
	if err := s.Upsert(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	p := s.partition("a")
	for q := range 5 {
		query, _ := normalized(seededVector(uint64(5000+q), dim))
		for _, f := range []store.Filter{{}, {Tags: []string{"t1"}}, {IncludeArchived: true}} {
			p.mu.RLock()
			s.opts.searchChunk = 1 << 30
			serial := s.scan(p, query, 50, &f)
			s.opts.searchChunk = 64
			parallel := s.scan(p, query, 50, &f)
			p.mu.RUnlock()
			if !slices.Equal(serial, parallel) {
				t.Fatalf("query %d filter %+v: parallel scan differs from serial", q, f)
			}
			ref := referenceRank(batch, query, &f)
			for i, c := range serial {
				if math.Abs(float64(c.score)-ref[i].score) > 1e-5 {
					t.Fatalf("query %d: hit %d scores %v, reference %v", q, i, c.score, ref[i].score)
				}
			}
		}
	}
}

type refHit struct {
	id    string
	score float64
}

func referenceRank(mems []memory.Memory, q []float32, f *store.Filter) []refHit {
	var out []refHit
	for i := range mems {
		if matches(&mems[i], f) {
			out = append(out, refHit{mems[i].ID, cosine64(q, mems[i].Vector)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

func cosine64(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

func TestVectorChecks(t *testing.T) {
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	ctx := t.Context()
	if err := s.Upsert(ctx, []memory.Memory{testMemory("a", 1, []float32{3, 4, 0})}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "a", testMemory("a", 1, nil).ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Vector, []float32{0.6, 0.8, 0}) {
		t.Errorf("stored vector %v, want it normalised to [0.6 0.8 0]", got.Vector)
	}
	for _, tc := range []struct {
		name    string
		vec     []float32
		wantMsg string
	}{
		{"wider", []float32{1, 2, 3, 4}, "vector has 4 dims but tenant a stores 3-dim vectors"},
		{"narrower", []float32{1, 2}, "vector has 2 dims but tenant a stores 3-dim vectors"},
		{"nan", []float32{1, float32(math.NaN()), 0}, "vector[1] is not a finite number"},
		{"inf", []float32{float32(math.Inf(-1)), 1, 0}, "vector[0] is not a finite number"},
		{"zero", []float32{0, 0, 0}, "all zeros"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Upsert(ctx, []memory.Memory{testMemory("a", 2, []float32{1, 1, 1}), testMemory("a", 3, tc.vec)})
			if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("got %v, want an invalid-input error containing %q", err, tc.wantMsg)
			}
			if n, _ := s.Count(ctx, "a", store.Filter{}); n != 1 {
				t.Fatalf("count %d after a rejected batch, want 1", n)
			}
		})
	}
	// Another tenant has a width of its own.
	if err := s.Upsert(ctx, []memory.Memory{testMemory("b", 1, []float32{1, 2, 3, 4, 5})}); err != nil {
		t.Fatalf("upsert of another width into another tenant: %v", err)
	}
	// A batch disagreeing with itself is rejected too.
	err = s.Upsert(ctx, []memory.Memory{testMemory("c", 1, []float32{1, 2}), testMemory("c", 2, []float32{1, 2, 3})})
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("batch with two widths for a new tenant: %v", err)
	}
	// The width is free again once no vector is left.
	if err := s.Delete(ctx, "b", testMemory("b", 1, nil).ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, []memory.Memory{testMemory("b", 2, []float32{1, 2})}); err != nil {
		t.Fatalf("upsert of a new width into an emptied tenant: %v", err)
	}
	_, err = s.Search(ctx, store.Query{Tenant: "a", Vector: []float32{1, 2}, K: 1})
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "2 dims") || !strings.Contains(err.Error(), "3-dim") {
		t.Fatalf("search with a narrow query: %v", err)
	}
}

func TestBatchLastWriteWins(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	a := testMemory("a", 1, []float32{1, 0})
	b := a
	b.Content, b.Vector = "second in the batch", nil
	if err := s.Upsert(t.Context(), []memory.Memory{a, b}); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"before restart", "after restart"} {
		got, err := s.Get(t.Context(), "a", a.ID)
		if err != nil || got.Content != b.Content || got.Vector != nil {
			t.Fatalf("%s: got %q %v (%v), want the batch's later memory", stage, got.Content, got.Vector, err)
		}
		closeT(t, s)
		s = openT(t, dir)
	}
	closeT(t, s)
}

// TestScrollPagesAndReentry scrolls past several pages while the callback
// writes to the same tenant, which must not deadlock.
func TestScrollPagesAndReentry(t *testing.T) {
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	n := 3*scrollPage + 17
	var want []string
	var batch []memory.Memory
	for i := range n {
		m := testMemory("a", i, nil)
		batch = append(batch, m)
		want = append(want, m.ID)
	}
	if err := s.Upsert(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	var got []string
	err := s.Scroll(t.Context(), "a", store.Filter{}, func(m memory.Memory) error {
		got = append(got, m.ID)
		if len(got)%100 == 0 {
			m.Importance = 0.9
			return s.Upsert(t.Context(), []memory.Memory{m})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("scroll over %d memories returned %d, or out of order", n, len(got))
	}
}

// TestScrollWhileDeletesMoveRows deletes memories of later pages from the
// callback, which moves the last rows into their places, and puts one
// back: each page must return the memories it still holds, in id order,
// each with its own record.
func TestScrollWhileDeletesMoveRows(t *testing.T) {
	for _, meta := range []bool{false, true} {
		s := openT(t, t.TempDir())
		n := 3*scrollPage + 40
		byID := map[string]memory.Memory{}
		var batch []memory.Memory
		for i := range n {
			m := testMemory("a", i, seededVector(uint64(i), 4))
			batch = append(batch, m)
			byID[m.ID] = m
		}
		if err := s.Upsert(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		ids := slices.Sorted(maps.Keys(byID))
		// Every third id of the last two pages goes, after the first page;
		// the first of them comes back.
		var gone []string
		for k := n - 2*scrollPage; k < n; k += 3 {
			gone = append(gone, ids[k])
		}
		var got []string
		fn := func(m memory.Memory) error {
			want := byID[m.ID]
			if m.Content != want.Content || (len(m.Vector) > 0) == meta {
				t.Fatalf("scroll returned %s with content %q and %d dims, want %q and vectors: %v", m.ID, m.Content, len(m.Vector), want.Content, !meta)
			}
			got = append(got, m.ID)
			if len(got) == scrollPage {
				if err := s.Delete(t.Context(), "a", gone...); err != nil {
					return err
				}
				return s.Upsert(t.Context(), []memory.Memory{byID[gone[0]]})
			}
			return nil
		}
		scroll := s.Scroll
		if meta {
			scroll = s.ScrollMeta
		}
		if err := scroll(t.Context(), "a", store.Filter{}, fn); err != nil {
			t.Fatal(err)
		}
		want := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(gone[1:], id) })
		if !slices.Equal(got, want) {
			t.Fatalf("scroll (without vectors: %v) returned %d memories, want %d in id order", meta, len(got), len(want))
		}
		closeT(t, s)
	}
}

func TestCloseTwice(t *testing.T) {
	s := openT(t, t.TempDir())
	closeT(t, s)
	if err := s.Close(); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("second close: %v, want store.ErrClosed", err)
	}
}

func TestConfig(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var c Config
	c.RegisterFlags("store.local.", fs)
	if c != DefaultConfig() {
		t.Fatalf("registered defaults %+v, want %+v", c, DefaultConfig())
	}
	if err := fs.Parse([]string{"--store.local.compact-min-bytes=1024", "--store.local.compact-ratio=3"}); err != nil {
		t.Fatal(err)
	}
	if c.CompactMinBytes != 1024 || c.CompactRatio != 3 || c.Validate() != nil {
		t.Fatalf("parsed %+v (%v)", c, c.Validate())
	}
	for _, bad := range []Config{{CompactMinBytes: 0, CompactRatio: 2}, {CompactMinBytes: 10, CompactRatio: 0}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
		if s, err := Open(t.TempDir(), WithConfig(bad)); err == nil {
			s.Close()
			t.Errorf("open with %+v succeeded", bad)
		}
	}
}
