package storetest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testConditionalWrites holds a store.ConditionalWriter to its promise: a
// memory written with the revision it was read at is stored only if no
// one wrote it since, the whole call refused otherwise; revision zero
// writes unconditionally; and read-modify-writers racing through
// store.Update lose no change. A store that does not write conditionally
// is skipped.
func testConditionalWrites(t *testing.T, e *env) {
	cw, ok := e.s.(store.ConditionalWriter)
	if !ok {
		t.Skip("the store does not write conditionally")
	}
	ten := tenant(t, "a")
	a, b := e.basic(t, ten, 1, e.vec(1, 0, 0, 0)), e.basic(t, ten, 2, e.vec(0, 1, 0, 0))
	upsert(t, e.s, a, b)
	read := func(id string) (memory.Memory, uint64) {
		t.Helper()
		m, rev, err := cw.GetRevision(t.Context(), ten, id)
		if err != nil {
			t.Fatalf("get revision of %s: %v", id, err)
		}
		return m, rev
	}

	first, rev1 := read(a.ID)
	second, rev2 := read(a.ID)
	if rev1 == 0 || rev1 != rev2 {
		t.Fatalf("two reads of an unchanged memory: revisions %d and %d (want equal, non-zero)", rev1, rev2)
	}
	checkMemory(t, "get revision", first, a)
	first.AccessCount = 3
	if err := cw.UpdatePayloadIf(t.Context(), ten, []memory.Memory{first}, []uint64{rev1}); err != nil {
		t.Fatalf("payload write at the read revision: %v", err)
	}
	if _, rev := read(a.ID); rev == rev1 {
		t.Fatal("a write left the revision as it was")
	}

	// second was read before first's write: refused, with the whole call.
	second.RepetitionCount = 9
	okB, revB := read(b.ID)
	okB.Importance = 0.9
	err := cw.UpdatePayloadIf(t.Context(), ten, []memory.Memory{okB, second}, []uint64{revB, rev2})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale payload write: %v, want a conflict", err)
	}
	// The names travel as the message over a remote store.
	if ce := (*store.ConflictError)(nil); errors.As(err, &ce) && (len(ce.IDs) != 1 || ce.IDs[0] != a.ID) {
		t.Fatalf("conflict names %v, want [%s]", ce.IDs, a.ID)
	}
	if got := get(t, e.s, ten, b.ID); got.Importance == 0.9 {
		t.Fatal("a refused call wrote part of its batch")
	}
	if got := get(t, e.s, ten, a.ID); got.AccessCount != 3 || got.RepetitionCount == 9 {
		t.Fatalf("the stale write went through: %+v", got)
	}
	second.Vector = e.vec(1, 0, 0, 0)
	if err := cw.UpsertIf(t.Context(), []memory.Memory{second}, []uint64{rev2}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale upsert: %v, want a conflict", err)
	}
	fresh, rev := read(a.ID)
	fresh.Vector = e.vec(1, 0, 0, 0)
	fresh.Tags = append(fresh.Tags, "retagged")
	if err := cw.UpsertIf(t.Context(), []memory.Memory{fresh}, []uint64{rev}); err != nil {
		t.Fatalf("upsert at the read revision: %v", err)
	}

	// Revision zero: unconditional.
	blind := get(t, e.s, ten, a.ID)
	blind.SuccessCount = 4
	if err := cw.UpdatePayloadIf(t.Context(), ten, []memory.Memory{blind}, []uint64{0}); err != nil {
		t.Fatalf("unconditional payload write: %v", err)
	}
	if err := cw.UpdatePayloadIf(t.Context(), ten, []memory.Memory{blind}, nil); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("revisions missing: %v, want memory.ErrInvalid", err)
	}

	// Deleted since it was read: a conflict, not a resurrection.
	gone, revGone := read(b.ID)
	if err := e.s.Delete(t.Context(), ten, b.ID); err != nil {
		t.Fatal(err)
	}
	gone.Vector = e.vec(0, 1, 0, 0)
	if err := cw.UpsertIf(t.Context(), []memory.Memory{gone}, []uint64{revGone}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("upsert of a memory deleted since it was read: %v, want a conflict", err)
	}
	if _, err := e.s.Get(t.Context(), ten, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted memory came back: %v", err)
	}
	if _, _, err := cw.GetRevision(t.Context(), ten, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get revision of a deleted memory: %v, want store.ErrNotFound", err)
	}

	// A revision scroll gives what GetRevision gives, without vectors.
	if rs, ok := e.s.(store.RevisionScroller); ok {
		n := 0
		err := rs.ScrollRevisions(t.Context(), ten, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory, rev uint64) error {
			n++
			if _, want := read(m.ID); rev != want || len(m.Vector) != 0 {
				t.Errorf("scroll revision of %s: %d with %d dims, GetRevision says %d", m.ID, rev, len(m.Vector), want)
			}
			return nil
		})
		if err != nil || n != 1 {
			t.Fatalf("scroll revisions: %d memories, %v", n, err)
		}
	}

	// Racing read-modify-writes lose nothing.
	const writers, each = 4, 25
	base := get(t, e.s, ten, a.ID).RepetitionCount
	var wg sync.WaitGroup
	var gaveUp atomic.Int32
	for range writers {
		wg.Go(func() {
			for range each {
				_, err := store.Update(t.Context(), e.s, ten, a.ID, false, func(m *memory.Memory) (bool, error) {
					m.RepetitionCount++
					return true, nil
				})
				if errors.Is(err, store.ErrConflict) {
					gaveUp.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got := get(t, e.s, ten, a.ID).RepetitionCount
	if want := base + writers*each - int(gaveUp.Load()); got != want {
		t.Fatalf("repetition count %d after %d racing increments (%d gave up), want %d", got, writers*each, gaveUp.Load(), want)
	}
}
