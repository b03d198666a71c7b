package storetest

import (
	"testing"

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

	check := func(stage string, extra ...memory.Memory) {
		t.Helper()
		for _, m := range append([]memory.Memory{full, lex, over, other}, extra...) {
			checkMemory(t, stage+": "+m.Content, get(t, e.s, m.Tenant, m.ID), m)
		}
		wantNotFound(t, e.s, a, gone.ID)
		if n := count(t, e.s, a, store.Filter{IncludeArchived: true}); n != 3+len(extra) {
			t.Errorf("%s: count = %d, want %d", stage, n, 3+len(extra))
		}
		hits := search(t, e.s, store.Query{Tenant: a, Vector: e.vec(0, 0, 0, 1), K: 1})
		if len(hits) != 1 || hits[0].Memory.ID != over.ID {
			t.Errorf("%s: search for the overwritten vector = %v, want %s", stage, hitIDs(hits), over.ID)
		}
	}
	e.reopen(t)
	check("after a restart")

	// The restarted store takes writes, and keeps them over another restart.
	more := e.basic(t, a, 5, e.vec(1, 1, 0, 0))
	upsert(t, e.s, more)
	e.reopen(t)
	check("after a second restart", more)
}
