package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func testRestartDurability(t *testing.T, e *env) {
	a, b := tenant(t, "a"), tenant(t, "b")
	full := e.full(t, a, 0)
	lex := e.basic(t, a, 1, nil)
	over := e.basic(t, a, 2, e.vec(1, 0, 0, 0))
	gone := e.basic(t, a, 3, e.vec(0, 1, 0, 0))
	other := e.basic(t, b, 4, e.vec(0, 0, 1, 0))
	upsert(t, e.s, full, lex, over)
	upsert(t, e.s, gone, other)
	over.Content, over.Vector = "overwritten before the restart", e.vec(0, 0, 0, 1)
	upsert(t, e.s, over)
	if err := e.s.Delete(t.Context(), a, gone.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	// Bookkeeping, which keeps the stored vector, survives a restart too.
	full.AccessCount, full.Importance, full.Epoch = full.AccessCount+3, 0.5, full.Epoch+2
	full.LastAccessed = full.LastAccessed.Add(time.Hour)
	upd := full
	upd.Vector = nil
	if err := e.s.UpdatePayload(t.Context(), a, []memory.Memory{upd}); err != nil {
		t.Fatalf("update payload: %v", err)
	}

	check := func(stage string, extra ...memory.Memory) {
		t.Helper()
		for _, m := range append([]memory.Memory{full, lex, over, other}, extra...) {
			checkMemory(t, stage+": "+m.Content, get(t, e.s, m.Tenant, m.ID), m)
		}
		wantNotFound(t, e.s, a, gone.ID)
		if n := count(t, e.s, a, store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}); n != 3+len(extra) {
			t.Errorf("%s: count = %d, want %d", stage, n, 3+len(extra))
		}
		hits := search(t, e.s, store.Query{Tenant: a, Vector: e.vec(0, 0, 0, 1), K: 1})
		if len(hits) != 1 || hits[0].Memory.ID != over.ID {
			t.Errorf("%s: search for the overwritten vector = %v, want %s", stage, hitIDs(hits), over.ID)
		}
		// The text index is rebuilt: the overwritten text is found, the old
		// and the deleted are not.
		if ids := hitIDs(searchText(t, e.s, store.TextQuery{Tenant: a, Text: "overwritten restart", K: 5})); !slices.Equal(ids, []string{over.ID}) {
			t.Errorf("%s: search text for the overwritten content = %v, want %s", stage, ids, over.ID)
		}
		want := []string{full.ID, lex.ID}
		for _, m := range extra {
			want = append(want, m.ID)
		}
		if ids := hitIDs(e.textAll(t, a)); !sameIDs(ids, want) {
			t.Errorf("%s: search text = %v, want %v", stage, ids, want)
		}
	}
	before := e.textAll(t, a)
	e.reopen(t)
	check("after a restart")
	sameHits(t, "search text after a restart", e.textAll(t, a), before)

	// The restarted store takes writes, and keeps them over another restart.
	more := e.basic(t, a, 5, e.vec(1, 1, 0, 0))
	upsert(t, e.s, more)
	e.reopen(t)
	check("after a second restart", more)
}

// textAll is a text search matching every memory of the restart test.
func (e *env) textAll(t *testing.T, ten string) []store.Hit {
	t.Helper()
	return searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "memory number dark themes", K: 10, Filter: store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}})
}

// sameHits reports hits that differ from want in id or, beyond the
// tolerance, in score.
func sameHits(t *testing.T, what string, got, want []store.Hit) {
	t.Helper()
	if !sameIDs(hitIDs(got), hitIDs(want)) {
		t.Errorf("%s: hits %v, want %v", what, hitIDs(got), hitIDs(want))
		return
	}
	score := make(map[string]float64, len(want))
	for _, h := range want {
		score[h.Memory.ID] = h.Score
	}
	for _, h := range got {
		if d := h.Score - score[h.Memory.ID]; d > scoreTolerance || d < -scoreTolerance {
			t.Errorf("%s: %s scores %.6f, want %.6f", what, h.Memory.ID, h.Score, score[h.Memory.ID])
		}
	}
}
