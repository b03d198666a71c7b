package storetest

import (
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testSessions, for a store that lists sessions (store.SessionLister): the
// tenant's sessions in the order their first memory's valid time (ValidFrom,
// else CreatedAt) came, each with its first and last time and its count,
// among the memories the filter lets through; a memory without a session
// is in none, another tenant's sessions never show, and a tenant with no
// memory has none; a write shows in the next list. A store that cannot
// list sessions skips it.
func testSessions(t *testing.T, e *env) {
	sl, ok := e.s.(store.SessionLister)
	if !ok {
		t.Skip("this store does not list sessions (store.SessionLister)")
	}
	a, b := tenant(t, "a"), tenant(t, "b")
	at := func(h int) time.Time { return baseTime.Add(time.Duration(h) * time.Hour) }
	mem := func(ten string, n int, session string, valid time.Time) memory.Memory {
		m := e.basic(t, ten, n, e.vec(1, float32(n), 0, 0))
		m.Session, m.ValidFrom = session, valid
		return m
	}
	later := mem(a, 0, "s-later", at(30)) // upserted first, began last
	later2 := mem(a, 1, "s-later", at(31))
	early := mem(a, 2, "s-early", at(2))
	early2 := mem(a, 3, "s-early", at(5))
	mid := mem(a, 4, "s-mid", time.Time{}) // no valid time: its CreatedAt counts
	mid.CreatedAt, mid.ModifiedAt = at(10), at(10)
	other := mem(a, 5, "s-other-ns", at(1))
	other.Namespace = "elsewhere"
	none := mem(a, 6, "", at(0))
	foreign := mem(b, 7, "s-foreign", at(0))
	upsert(t, e.s, later, later2, early, early2, mid, other, none, foreign)

	list := func(ten string, f store.Filter) []store.SessionSpan {
		t.Helper()
		spans, err := sl.Sessions(t.Context(), ten, f)
		if err != nil {
			t.Fatalf("sessions of %s: %v", ten, err)
		}
		return spans
	}
	want := []store.SessionSpan{
		{Session: "s-other-ns", First: at(1), Last: at(1), Memories: 1},
		{Session: "s-early", First: at(2), Last: at(5), Memories: 2},
		{Session: "s-mid", First: at(10), Last: at(10), Memories: 1},
		{Session: "s-later", First: at(30), Last: at(31), Memories: 2},
	}
	same := func(what string, got, want []store.SessionSpan) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d sessions %v, want %d %v", what, len(got), got, len(want), want)
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Session != w.Session || !g.First.Equal(w.First) || !g.Last.Equal(w.Last) || g.Memories != w.Memories {
				t.Errorf("%s: session %d = %+v, want %+v", what, i, g, w)
			}
		}
	}
	same("every namespace", list(a, store.Filter{}), want)
	same("the default namespace", list(a, store.Filter{Namespaces: []string{memory.DefaultNamespace}}), want[1:])
	same("another tenant", list(b, store.Filter{}), []store.SessionSpan{{Session: "s-foreign", First: at(0), Last: at(0), Memories: 1}})
	same("a tenant with no memory", list(tenant(t, "nobody"), store.Filter{}), nil)

	// A deleted memory leaves its session's span; the last one, the session.
	if err := e.s.Delete(t.Context(), a, early.ID, mid.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	def := store.Filter{Namespaces: []string{memory.DefaultNamespace}}
	same("after deletes", list(a, def), []store.SessionSpan{
		{Session: "s-early", First: at(5), Last: at(5), Memories: 1},
		{Session: "s-later", First: at(30), Last: at(31), Memories: 2},
	})
	// A new session, and an archived memory, show at once in the next list.
	upsert(t, e.s, mem(a, 8, "s-new", at(40)))
	later2.Archived = true
	if err := e.s.UpdatePayload(t.Context(), a, []memory.Memory{later2}); err != nil {
		t.Fatalf("archive: %v", err)
	}
	same("after an upsert and an archive", list(a, def), []store.SessionSpan{
		{Session: "s-early", First: at(5), Last: at(5), Memories: 1},
		{Session: "s-later", First: at(30), Last: at(30), Memories: 1},
		{Session: "s-new", First: at(40), Last: at(40), Memories: 1},
	})
	def.IncludeArchived = true
	same("archived included", list(a, def), []store.SessionSpan{
		{Session: "s-early", First: at(5), Last: at(5), Memories: 1},
		{Session: "s-later", First: at(30), Last: at(31), Memories: 2},
		{Session: "s-new", First: at(40), Last: at(40), Memories: 1},
	})
}
