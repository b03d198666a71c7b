package storetest

import (
	"math"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testScratch: a search given a store.Scratch answers exactly as one
// without (ids, scores, vectors, chunk vectors), for Search with and
// without chunks and for SearchText; and the scratch is only ever a copy:
// writing over every float it lent, as the next recall does after Reset,
// changes nothing the store holds or returns.
func testScratch(t *testing.T, e *env) {
	a := tenant(t, "a")
	long := e.basic(t, a, 0, e.vec(1, 0, 0, 0))
	long.Content = "harbour sailing notes in three parts"
	long.ChunkVectors = [][]float32{e.vec(1, 0.2, 0, 0), e.vec(1, 0, 0.2, 0), e.vec(0, 0, 0.1, 1)}
	near := e.basic(t, a, 1, e.vec(0.6, 0, 0, 0.8))
	near.Content = "sailing to the harbour"
	far := e.basic(t, a, 2, e.vec(0, 1, 0, 0))
	far.Content = "a boat in the harbour"
	upsert(t, e.s, long, near, far)
	stored := map[string]memory.Memory{long.ID: long, near.ID: near, far.ID: far}

	sc := new(store.Scratch)
	same := func(what string, with, without []store.Hit) {
		t.Helper()
		if !slices.Equal(hitIDs(with), hitIDs(without)) {
			t.Fatalf("%s: with a scratch %v, without %v", what, hitIDs(with), hitIDs(without))
		}
		for i, h := range with {
			if math.Abs(h.Score-without[i].Score) > scoreTolerance {
				t.Errorf("%s: %s scores %.6f with a scratch, %.6f without", what, h.Memory.ID, h.Score, without[i].Score)
			}
			checkMemory(t, what+" "+h.Memory.ID+" with a scratch", h.Memory, stored[h.Memory.ID])
			// A copy, not a view of the store: written over below.
			fill(h.Memory.Vector)
			for _, c := range h.Memory.ChunkVectors {
				fill(c)
			}
		}
	}
	query := e.vec(0, 0, 0, 1)
	for _, chunks := range []bool{false, true} {
		q := store.Query{Tenant: a, Vector: query, K: 10, Chunks: chunks}
		without := search(t, e.s, q)
		q.Scratch = sc
		same("search", search(t, e.s, q), without)
	}
	tq := store.TextQuery{Tenant: a, Text: "harbour sailing", K: 10}
	without := searchText(t, e.s, tq)
	tq.Scratch = sc
	same("search text", searchText(t, e.s, tq), without)

	// The next request's use of the scratch: every float it lent, written over.
	sc.Reset()
	fill(sc.Floats(1 << 20))
	for id, want := range stored {
		checkMemory(t, id+" after the scratch was reused", get(t, e.s, a, id), want)
	}
	// And a scratch full of junk lends it out again, overwritten.
	sc.Reset()
	q := store.Query{Tenant: a, Vector: query, K: 10, Chunks: true}
	without = search(t, e.s, q)
	q.Scratch = sc
	same("search with a reused scratch", search(t, e.s, q), without)
}

// fill writes junk over v.
func fill(v []float32) {
	for i := range v {
		v[i] = -7
	}
}
