package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func testScrollOrder(t *testing.T, e *env) {
	ten := tenant(t, "a")
	var want []string
	var batch []memory.Memory
	for i := range 40 {
		v := e.vec(1, float32(i), 0, 0)
		if i%5 == 0 {
			v = nil
		}
		m := e.basic(t, ten, i, v)
		batch = append(batch, m)
		want = append(want, m.ID)
	}
	// Insert in reverse so that insertion order is not id order.
	slices.Reverse(batch)
	upsert(t, e.s, batch...)
	slices.Sort(want)
	if got := scrollIDs(t, e.s, ten, store.Filter{}); !slices.Equal(got, want) {
		t.Fatalf("scroll order:\n got %v\nwant %v", got, want)
	}
	if got := scrollIDs(t, e.s, ten, store.Filter{Namespaces: []string{"elsewhere"}}); len(got) != 0 {
		t.Fatalf("scroll filtered to nothing returned %v", got)
	}
}

func testScrollEarlyStop(t *testing.T, e *env) {
	ten := tenant(t, "a")
	var ids []string
	for i := range 12 {
		m := e.basic(t, ten, i, e.vec(1, float32(i), 0, 0))
		upsert(t, e.s, m)
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	stop := errors.New("enough")
	var seen []string
	err := e.s.Scroll(t.Context(), ten, store.Filter{}, func(m memory.Memory) error {
		seen = append(seen, m.ID)
		if len(seen) == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("scroll returned %v, want the callback's error", err)
	}
	if !slices.Equal(seen, ids[:5]) {
		t.Fatalf("scroll called back with %v, want the first five ids %v", seen, ids[:5])
	}
}

func testCount(t *testing.T, e *env) {
	ten := tenant(t, "a")
	if n := count(t, e.s, ten, store.Filter{}); n != 0 {
		t.Fatalf("count of an empty tenant = %d", n)
	}
	var ids []string
	for i := range 9 {
		m := e.basic(t, ten, i, e.vec(1, float32(i), 0, 0))
		m.Archived = i%3 == 0
		upsert(t, e.s, m)
		ids = append(ids, m.ID)
	}
	if n := count(t, e.s, ten, store.Filter{}); n != 6 {
		t.Fatalf("count = %d, want 6 (3 of 9 archived)", n)
	}
	if n := count(t, e.s, ten, store.Filter{IncludeArchived: true}); n != 9 {
		t.Fatalf("count with archived = %d, want 9", n)
	}
	if err := e.s.Delete(t.Context(), ten, ids[1], ids[3]); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if n := count(t, e.s, ten, store.Filter{IncludeArchived: true}); n != 7 {
		t.Fatalf("count after deleting two = %d, want 7", n)
	}
}

func testDelete(t *testing.T, e *env) {
	ten := tenant(t, "a")
	var mems []memory.Memory
	for i := range 5 {
		mems = append(mems, e.basic(t, ten, i, e.vec(1, float32(i)/4, 0, 0)))
	}
	upsert(t, e.s, mems...)
	gone := []string{mems[0].ID, mems[3].ID}
	if err := e.s.Delete(t.Context(), ten, gone[0], id(t, 99), gone[1]); err != nil {
		t.Fatalf("delete two ids and an unknown one: %v", err)
	}
	for _, g := range gone {
		wantNotFound(t, e.s, ten, g)
	}
	kept := []string{mems[1].ID, mems[2].ID, mems[4].ID}
	for _, k := range kept {
		get(t, e.s, ten, k)
	}
	if ids := scrollIDs(t, e.s, ten, store.Filter{}); !sameIDs(ids, kept) {
		t.Fatalf("scroll after delete = %v, want %v", ids, kept)
	}
	if ids := hitIDs(search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10})); !sameIDs(ids, kept) {
		t.Fatalf("search after delete = %v, want %v", ids, kept)
	}
	if err := e.s.Delete(t.Context(), ten, gone...); err != nil {
		t.Fatalf("deleting again: %v", err)
	}
	if err := e.s.Delete(t.Context(), ten); err != nil {
		t.Fatalf("deleting no ids: %v", err)
	}
	// A deleted id can be written again.
	upsert(t, e.s, mems[0])
	checkMemory(t, "get after re-adding", get(t, e.s, ten, mems[0].ID), mems[0])
	if n := count(t, e.s, ten, store.Filter{}); n != 4 {
		t.Fatalf("count = %d, want 4", n)
	}
}

// testScrollMeta checks a store's scroll without vectors against Scroll:
// the same memories in the same order under any filter, each without its
// vector, and an early stop returned as is.
func testScrollMeta(t *testing.T, e *env) {
	ms, ok := e.s.(store.MetaScroller)
	if !ok {
		t.Skip("the store has no ScrollMeta; readers scroll with vectors")
	}
	ten := tenant(t, "a")
	var batch []memory.Memory
	for i := range 30 {
		v := e.vec(1, float32(i), 0, 0)
		if i%4 == 0 {
			v = nil
		}
		m := e.basic(t, ten, i, v)
		m.Archived = i%3 == 0
		batch = append(batch, m)
	}
	batch = append(batch, e.full(t, ten, 30))
	slices.Reverse(batch)
	upsert(t, e.s, batch...)
	for _, f := range []store.Filter{{}, {IncludeArchived: true, IncludeSuperseded: true}, {Namespaces: []string{"elsewhere"}}} {
		var want, got []memory.Memory
		if err := e.s.Scroll(t.Context(), ten, f, func(m memory.Memory) error {
			m.Vector = nil
			want = append(want, m)
			return nil
		}); err != nil {
			t.Fatalf("scroll: %v", err)
		}
		if err := ms.ScrollMeta(t.Context(), ten, f, func(m memory.Memory) error {
			got = append(got, m)
			return nil
		}); err != nil {
			t.Fatalf("scroll without vectors: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("filter %+v: scroll without vectors returned %d memories, scroll %d", f, len(got), len(want))
		}
		for i := range want {
			if got[i].Vector != nil {
				t.Fatalf("scroll without vectors returned %s with a %d-dim vector", got[i].ID, len(got[i].Vector))
			}
			checkMemory(t, "scroll without vectors", got[i], want[i])
		}
	}
	stop := errors.New("enough")
	n := 0
	err := ms.ScrollMeta(t.Context(), ten, store.Filter{IncludeArchived: true}, func(memory.Memory) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("scroll without vectors returned %v after %d callbacks, want the callback's error after 3", err, n)
	}
}

// testScrollMetaAfter checks a store's scroll from an id against
// ScrollMeta: the same memories after that id, in order, under a filter.
func testScrollMetaAfter(t *testing.T, e *env) {
	ps, ok := e.s.(store.PageScroller)
	if !ok {
		t.Skip("the store has no ScrollMetaAfter; listings skip to their cursor")
	}
	ms := e.s.(store.MetaScroller)
	ten := tenant(t, "a")
	var batch []memory.Memory
	for i := range 20 {
		m := e.basic(t, ten, i, e.vec(1, float32(i), 0, 0))
		m.Archived = i%3 == 0
		batch = append(batch, m)
	}
	upsert(t, e.s, batch...)
	var all []memory.Memory
	if err := ms.ScrollMeta(t.Context(), ten, store.Filter{}, func(m memory.Memory) error {
		all = append(all, m)
		return nil
	}); err != nil || len(all) < 5 {
		t.Fatalf("scroll: %d memories, %v", len(all), err)
	}
	for _, after := range []string{"", all[0].ID, all[3].ID, all[3].ID + "\x00", all[len(all)-1].ID, "\U0010FFFF"} {
		var got []string
		if err := ps.ScrollMetaAfter(t.Context(), ten, store.Filter{}, after, func(m memory.Memory) error {
			if m.Vector != nil {
				t.Fatalf("a scroll without vectors returned %s with a vector", m.ID)
			}
			got = append(got, m.ID)
			return nil
		}); err != nil {
			t.Fatalf("scroll after %q: %v", after, err)
		}
		var want []string
		for _, m := range all {
			if m.ID > after {
				want = append(want, m.ID)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scroll after %q = %v, want %v", after, got, want)
		}
	}
}
