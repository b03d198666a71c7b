package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func testUpdatePayload(t *testing.T, e *env) {
	ten := tenant(t, "a")
	orig := e.basic(t, ten, 1, e.vec(1, 0, 0, 0))
	other := e.basic(t, ten, 2, e.vec(0, 1, 0, 0))
	upsert(t, e.s, orig, other)

	// The caller's copy carries no vector (or a stale one): the stored one stays.
	upd := get(t, e.s, ten, orig.ID)
	upd.Vector = nil
	upd.AccessCount = 7
	upd.Importance = 0.25
	upd.Layer = memory.LayerCore
	upd.LastAccessed = upd.CreatedAt.Add(time.Hour)
	missing := e.basic(t, ten, 3, e.vec(0, 0, 1, 0))
	if err := e.s.UpdatePayload(t.Context(), ten, []memory.Memory{upd, missing}); err != nil {
		t.Fatalf("update payload: %v", err)
	}
	want := upd
	want.Vector = orig.Vector
	checkMemory(t, "get after update payload", get(t, e.s, ten, orig.ID), want)
	if _, err := e.s.Get(t.Context(), ten, missing.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update payload of an unknown id created it (get: %v)", err)
	}
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 1})
	if len(hits) != 1 || hits[0].Memory.ID != orig.ID || hits[0].Score < 1-scoreTolerance {
		t.Fatalf("search by the kept vector: %v, want %s scoring 1", hitScores(hits), orig.ID)
	}

	// Superseding is bookkeeping too: the memory leaves what a default
	// filter reads, keeps its vector, and comes back when it is undone.
	sup := get(t, e.s, ten, other.ID)
	inv := sup.CreatedAt.Add(2 * time.Hour)
	sup.InvalidAt, sup.SupersededBy, sup.DerivedFrom, sup.Epoch = &inv, orig.ID, []string{orig.ID}, 3
	if err := e.s.UpdatePayload(t.Context(), ten, []memory.Memory{sup}); err != nil {
		t.Fatalf("update payload superseding a memory: %v", err)
	}
	checkMemory(t, "get after superseding", get(t, e.s, ten, other.ID), sup)
	if n := count(t, e.s, ten, store.Filter{}); n != 1 {
		t.Fatalf("count after superseding one of two = %d, want 1", n)
	}
	if n := count(t, e.s, ten, store.Filter{IncludeSuperseded: true}); n != 2 {
		t.Fatalf("count including superseded = %d, want 2", n)
	}
	if ids := hitIDs(search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(0, 1, 0, 0), K: 2})); !sameIDs(ids, []string{orig.ID}) {
		t.Fatalf("search after superseding = %v, want only %s", ids, orig.ID)
	}
	hits = search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(0, 1, 0, 0), K: 1, Filter: store.Filter{IncludeSuperseded: true}})
	if len(hits) != 1 || hits[0].Memory.ID != other.ID || hits[0].Score < 1-scoreTolerance {
		t.Fatalf("search including superseded: %v, want %s by its kept vector", hitScores(hits), other.ID)
	}
	sup.InvalidAt, sup.SupersededBy = nil, ""
	if err := e.s.UpdatePayload(t.Context(), ten, []memory.Memory{sup}); err != nil {
		t.Fatalf("update payload restoring a memory: %v", err)
	}
	if n := count(t, e.s, ten, store.Filter{}); n != 2 {
		t.Fatalf("count after restoring = %d, want 2", n)
	}

	// A text change is refused whole: the other memory's change is not written.
	changed := get(t, e.s, ten, orig.ID)
	changed.Content = "a different text"
	bump := get(t, e.s, ten, other.ID)
	bump.AccessCount = 99
	err := e.s.UpdatePayload(t.Context(), ten, []memory.Memory{bump, changed})
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("update payload with a changed text: err %v, want memory.ErrInvalid", err)
	}
	if got := get(t, e.s, ten, other.ID); got.AccessCount != other.AccessCount {
		t.Fatalf("refused batch wrote access_count %d, want %d", got.AccessCount, other.AccessCount)
	}

	// Another tenant's id is not reachable through this tenant.
	ten2 := tenant(t, "b")
	foreign := get(t, e.s, ten, other.ID)
	foreign.Tenant = ten2
	foreign.AccessCount = 42
	if err := e.s.UpdatePayload(t.Context(), ten2, []memory.Memory{foreign}); err != nil {
		t.Fatalf("update payload in an empty tenant: %v", err)
	}
	if got := get(t, e.s, ten, other.ID); got.AccessCount == 42 {
		t.Fatal("update payload through another tenant changed the memory")
	}
	if n := count(t, e.s, ten2, store.Filter{IncludeArchived: true}); n != 0 {
		t.Fatalf("update payload through another tenant created %d memories", n)
	}

	// A memory of another tenant than the call's is invalid.
	wrong := get(t, e.s, ten, other.ID)
	if err := e.s.UpdatePayload(t.Context(), ten2, []memory.Memory{wrong}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("update payload of a memory naming tenant %s through %s: err %v, want memory.ErrInvalid", ten, ten2, err)
	}
}

func testHybrid(t *testing.T, e *env) {
	hs, ok := e.s.(store.HybridSearcher)
	if !ok {
		t.Skip("the store has no SearchHybrid; recall runs Search and SearchText")
	}
	ten := tenant(t, "a")
	a := e.basic(t, ten, 1, e.vec(1, 0, 0, 0))
	a.Content = "deploys go through the staging cluster first"
	b := e.basic(t, ten, 2, e.vec(0.8, 0.6, 0, 0))
	b.Content = "the user prefers tabs over spaces"
	c := e.basic(t, ten, 3, e.vec(0, 0, 1, 0))
	c.Content = "staging deploys need a green build"
	upsert(t, e.s, a, b, c)
	q := store.HybridQuery{Tenant: ten, Vector: e.vec(1, 0, 0, 0), Text: "staging deploys", K: 2}
	dense, lex, err := hs.SearchHybrid(t.Context(), q)
	if err != nil {
		t.Fatalf("hybrid search: %v", err)
	}
	wantDense := search(t, e.s, store.Query{Tenant: ten, Vector: q.Vector, K: q.K})
	wantLex := searchText(t, e.s, store.TextQuery{Tenant: ten, Text: q.Text, K: q.K})
	sameHits(t, "dense channel", dense, wantDense)
	sameHits(t, "lexical channel", lex, wantLex)

	_, lex, err = hs.SearchHybrid(t.Context(), store.HybridQuery{Tenant: ten, Vector: q.Vector, Text: "the of and", K: 2})
	if err != nil || len(lex) != 0 {
		t.Fatalf("hybrid search with a stopword-only text: %d lexical hits, err %v; want none", len(lex), err)
	}
}
