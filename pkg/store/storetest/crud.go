package storetest

import (
	"errors"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func testRoundTrip(t *testing.T, e *env) {
	ten := tenant(t, "a")
	want := e.full(t, ten, 1)
	in := want
	in.Tags = append([]string(nil), want.Tags...)
	in.DerivedFrom = append([]string(nil), want.DerivedFrom...)
	upsert(t, e.s, in)
	// The store must have kept its own copy.
	in.Tags[0], in.DerivedFrom[0] = "changed-by-caller", "changed-by-caller"

	got := get(t, e.s, ten, want.ID)
	checkMemory(t, "get", got, want)
	got.Tags[0], got.DerivedFrom[0] = "changed-by-reader", "changed-by-reader"
	checkMemory(t, "get after the caller changed a result", get(t, e.s, ten, want.ID), want)

	// want is archived, superseded and quarantined: only a filter including
	// all three finds it.
	everything := store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}
	for _, f := range []store.Filter{{}, {IncludeArchived: true}, {IncludeSuperseded: true}, {IncludeQuarantined: true},
		{IncludeArchived: true, IncludeSuperseded: true}, {IncludeArchived: true, IncludeQuarantined: true}} {
		if n := count(t, e.s, ten, f); n != 0 {
			t.Errorf("count %+v of an archived, superseded, quarantined memory = %d, want 0", f, n)
		}
	}
	var scrolled []memory.Memory
	if err := e.s.Scroll(t.Context(), ten, everything, func(m memory.Memory) error {
		scrolled = append(scrolled, m)
		return nil
	}); err != nil {
		t.Fatalf("scroll: %v", err)
	}
	if len(scrolled) != 1 {
		t.Fatalf("scroll returned %d memories, want 1", len(scrolled))
	}
	checkMemory(t, "scroll", scrolled[0], want)

	hits := search(t, e.s, store.Query{Tenant: ten, Vector: want.Vector, K: 5, Filter: everything})
	if len(hits) != 1 {
		t.Fatalf("search returned %d hits, want 1", len(hits))
	}
	checkMemory(t, "search hit", hits[0].Memory, want)
	if d := hits[0].Score - 1; d > scoreTolerance || d < -scoreTolerance {
		t.Errorf("search of a memory's own vector scored %.6f, want 1", hits[0].Score)
	}
}

func testIdempotentUpsert(t *testing.T, e *env) {
	ten := tenant(t, "a")
	first := e.basic(t, ten, 1, e.vec(1, 0, 0, 0))
	upsert(t, e.s, first)
	upsert(t, e.s, first)
	if n := count(t, e.s, ten, store.Filter{}); n != 1 {
		t.Fatalf("count after the same upsert twice = %d, want 1", n)
	}
	second := first
	second.Content = "the later write"
	second.Layer = memory.LayerCore
	second.Tags = []string{"later"}
	second.Vector = e.vec(0, 1, 0, 0)
	upsert(t, e.s, second)
	if n := count(t, e.s, ten, store.Filter{}); n != 1 {
		t.Fatalf("count after overwriting = %d, want 1", n)
	}
	checkMemory(t, "get after overwrite", get(t, e.s, ten, first.ID), second)
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(0, 1, 0, 0), K: 5})
	if len(hits) != 1 || hits[0].Score < 1-scoreTolerance {
		t.Fatalf("search by the new vector: %d hits, want 1 scoring 1 (%v)", len(hits), hitScores(hits))
	}
	if n := len(scrollIDs(t, e.s, ten, store.Filter{})); n != 1 {
		t.Fatalf("scroll after overwriting returned %d memories, want 1", n)
	}
}

func testRejectsInvalidBatch(t *testing.T, e *env) {
	ten := tenant(t, "a")
	good := e.basic(t, ten, 1, e.vec(1, 0, 0, 0))
	for _, tc := range []struct {
		name string
		bad  func(m *memory.Memory)
	}{
		{"empty content", func(m *memory.Memory) { m.Content = "  " }},
		{"bad tenant", func(m *memory.Memory) { m.Tenant = "no spaces allowed" }},
		{"unknown type", func(m *memory.Memory) { m.Type = "gossip" }},
		{"unknown layer", func(m *memory.Memory) { m.Layer = "attic" }},
		{"missing id", func(m *memory.Memory) { m.ID = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := e.basic(t, ten, 2, e.vec(0, 1, 0, 0))
			tc.bad(&bad)
			err := e.s.Upsert(t.Context(), []memory.Memory{good, bad})
			if !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("upsert of a batch with an invalid memory: got %v, want memory.ErrInvalid", err)
			}
			wantNotFound(t, e.s, ten, good.ID)
			if n := count(t, e.s, ten, store.Filter{IncludeArchived: true}); n != 0 {
				t.Fatalf("count after a rejected batch = %d, want 0", n)
			}
		})
	}
}

func testDimensionMismatch(t *testing.T, e *env) {
	ten := tenant(t, "a")
	upsert(t, e.s, e.basic(t, ten, 1, e.vec(1, 0, 0, 0)))
	wider := e.basic(t, ten, 2, append(e.vec(0, 1, 0, 0), 1))
	if err := e.s.Upsert(t.Context(), []memory.Memory{e.basic(t, ten, 3, e.vec(0, 0, 1, 0)), wider}); !errors.Is(err, store.ErrDimension) || !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("upsert of a %d-dim vector next to %d-dim ones: %v, want store.ErrDimension", len(wider.Vector), e.h.Dim, err)
	}
	if n := count(t, e.s, ten, store.Filter{}); n != 1 {
		t.Fatalf("count after a rejected batch = %d, want 1", n)
	}
	if _, err := e.s.Search(t.Context(), store.Query{Tenant: ten, Vector: wider.Vector, K: 3}); !errors.Is(err, store.ErrDimension) {
		t.Fatalf("search with a %d-dim query over %d-dim vectors: %v, want store.ErrDimension", len(wider.Vector), e.h.Dim, err)
	}
}

func testLexicalOnly(t *testing.T, e *env) {
	ten := tenant(t, "a")
	lex := e.basic(t, ten, 1, nil)
	dense := e.basic(t, ten, 2, e.vec(1, 0, 0, 0))
	upsert(t, e.s, lex, dense)
	checkMemory(t, "get lexical-only", get(t, e.s, ten, lex.ID), lex)
	if n := count(t, e.s, ten, store.Filter{}); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	if ids := scrollIDs(t, e.s, ten, store.Filter{}); !sameIDs(ids, []string{lex.ID, dense.ID}) {
		t.Fatalf("scroll = %v, want both memories", ids)
	}
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 1, 1, 1), K: 10})
	if ids := hitIDs(hits); !sameIDs(ids, []string{dense.ID}) {
		t.Fatalf("search hits = %v, want only the memory with a vector %s", ids, dense.ID)
	}
}

func testNotFound(t *testing.T, e *env) {
	ten := tenant(t, "a")
	upsert(t, e.s, e.basic(t, ten, 1, e.vec(1, 0, 0, 0)))
	wantNotFound(t, e.s, ten, id(t, 99))
	wantNotFound(t, e.s, tenant(t, "nobody"), id(t, 1))
}

func testCancelledContext(t *testing.T, e *env) {
	ten := tenant(t, "a")
	ctx := ctxCancelled(t)
	if err := e.s.Upsert(ctx, []memory.Memory{e.basic(t, ten, 1, e.vec(1, 0, 0, 0))}); err == nil {
		t.Fatal("upsert with a cancelled context succeeded")
	}
	if n := count(t, e.s, ten, store.Filter{}); n != 0 {
		t.Fatalf("count after a cancelled upsert = %d, want 0", n)
	}
}

func testClosed(t *testing.T, e *env) {
	ten := tenant(t, "a")
	m := e.basic(t, ten, 1, e.vec(1, 0, 0, 0))
	upsert(t, e.s, m)
	if err := e.s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	ctx := t.Context()
	_, getErr := e.s.Get(ctx, ten, m.ID)
	_, searchErr := e.s.Search(ctx, store.Query{Tenant: ten, Vector: m.Vector, K: 1})
	_, textErr := e.s.SearchText(ctx, store.TextQuery{Tenant: ten, Text: m.Content, K: 1})
	_, countErr := e.s.Count(ctx, ten, store.Filter{})
	_, tenantsErr := e.s.Tenants(ctx)
	for name, err := range map[string]error{
		"upsert":  e.s.Upsert(ctx, []memory.Memory{m}),
		"get":     getErr,
		"delete":  e.s.Delete(ctx, ten, m.ID),
		"search":  searchErr,
		"text":    textErr,
		"scroll":  e.s.Scroll(ctx, ten, store.Filter{}, func(memory.Memory) error { return nil }),
		"count":   countErr,
		"tenants": tenantsErr,
	} {
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after close: got %v, want store.ErrClosed", name, err)
		}
	}
}

func hitScores(hits []store.Hit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}
