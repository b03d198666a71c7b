package storetest

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testChunkVectors: a long memory is found by its third chunk when a query
// asks for chunks (store.Query.Chunks), returned once with that chunk's
// score; without Chunks only its vector counts. Its chunk vectors come back
// from Get, survive UpdatePayload, a replacing upsert drops them, a delete
// removes it cleanly, and a restart keeps them.
func testChunkVectors(t *testing.T, e *env) {
	a := tenant(t, "a")
	query := e.vec(0, 0, 0, 1)
	long := e.basic(t, a, 0, e.vec(1, 0, 0, 0))
	long.Content = "a long memory with three parts"
	long.ChunkVectors = [][]float32{e.vec(1, 0.2, 0, 0), e.vec(1, 0, 0.2, 0), e.vec(0, 0, 0.1, 1)}
	near := e.basic(t, a, 1, e.vec(0.6, 0, 0, 0.8))
	far := e.basic(t, a, 2, e.vec(0, 1, 0, 0))
	// Another long memory, upserted after the first, so that deleting the
	// first moves it within the store.
	second := e.basic(t, a, 3, e.vec(0, 0, 1, 0))
	second.ChunkVectors = [][]float32{e.vec(0, 0.3, 1, 0), e.vec(0, 0, 1, 0.3)}
	upsert(t, e.s, long, near, far, second)
	checkMemory(t, "long memory", get(t, e.s, a, long.ID), long)
	checkMemory(t, "short memory", get(t, e.s, a, near.ID), near)

	third := cosine(query, long.ChunkVectors[2])
	secondBest := cosine(query, second.ChunkVectors[1])
	check := func(stage string) {
		t.Helper()
		whole := search(t, e.s, store.Query{Tenant: a, Vector: query, K: 10})
		if len(whole) == 0 || whole[0].Memory.ID != near.ID {
			t.Errorf("%s: search without chunks = %v, want %s first", stage, hitIDs(whole), near.ID)
		}
		for _, h := range whole {
			if h.Memory.ID == long.ID && math.Abs(h.Score) > scoreTolerance {
				t.Errorf("%s: without chunks the long memory scores %.6f, want its vector's 0", stage, h.Score)
			}
		}
		hits := search(t, e.s, store.Query{Tenant: a, Vector: query, K: 10, Chunks: true})
		ids := hitIDs(hits)
		if want := []string{long.ID, near.ID, second.ID}; len(ids) < 3 || !slices.Equal(ids[:3], want) {
			t.Errorf("%s: search with chunks = %v, want %v first", stage, ids, want)
		}
		seen := map[string]bool{}
		for _, h := range hits {
			if seen[h.Memory.ID] {
				t.Errorf("%s: search with chunks returned %s twice", stage, h.Memory.ID)
			}
			seen[h.Memory.ID] = true
		}
		if len(hits) != 4 {
			t.Errorf("%s: search with chunks found %d memories, want 4", stage, len(hits))
		}
		if len(hits) > 0 && math.Abs(hits[0].Score-third) > scoreTolerance {
			t.Errorf("%s: long memory scores %.6f, want its third chunk's %.6f", stage, hits[0].Score, third)
		}
		if len(hits) > 2 && math.Abs(hits[2].Score-secondBest) > scoreTolerance {
			t.Errorf("%s: second long memory scores %.6f, want %.6f", stage, hits[2].Score, secondBest)
		}
		one := search(t, e.s, store.Query{Tenant: a, Vector: query, K: 1, Chunks: true})
		if ids := hitIDs(one); !slices.Equal(ids, []string{long.ID}) {
			t.Errorf("%s: k=1 with chunks = %v, want %s", stage, ids, long.ID)
		}
		// A filter that leaves the long memory out leaves its chunks out.
		other := search(t, e.s, store.Query{Tenant: a, Vector: query, K: 10, Chunks: true,
			Filter: store.Filter{Sessions: []string{"none"}}})
		if len(other) != 0 {
			t.Errorf("%s: filtered search with chunks = %v, want none", stage, hitIDs(other))
		}
		if hs, ok := e.s.(store.HybridSearcher); ok {
			dense, _, err := hs.SearchHybrid(t.Context(), store.HybridQuery{Tenant: a, Vector: query, Text: "long memory parts", K: 10, Chunks: true})
			if err != nil {
				t.Fatalf("%s: hybrid search: %v", stage, err)
			}
			if ids := hitIDs(dense); len(ids) == 0 || ids[0] != long.ID {
				t.Errorf("%s: hybrid dense hits with chunks = %v, want %s first", stage, ids, long.ID)
			}
		}
	}
	check("stored")

	// Bookkeeping keeps the chunk vectors, as it keeps the vector.
	upd := long
	upd.Vector, upd.ChunkVectors = nil, nil
	upd.AccessCount, upd.Importance = 4, 0.9
	if err := e.s.UpdatePayload(t.Context(), a, []memory.Memory{upd}); err != nil {
		t.Fatalf("update payload: %v", err)
	}
	long.AccessCount, long.Importance = 4, 0.9
	checkMemory(t, "after update payload", get(t, e.s, a, long.ID), long)
	check("after update payload")

	if e.h.Reopen != nil {
		e.reopen(t)
		checkMemory(t, "long memory after a restart", get(t, e.s, a, long.ID), long)
		checkMemory(t, "second long memory after a restart", get(t, e.s, a, second.ID), second)
		check("after a restart")
	}

	// Deleted, the long memory and its chunks are gone; the other long
	// memory keeps its own.
	if err := e.s.Delete(t.Context(), a, long.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	wantNotFound(t, e.s, a, long.ID)
	hits := search(t, e.s, store.Query{Tenant: a, Vector: query, K: 10, Chunks: true})
	if ids := hitIDs(hits); !slices.Equal(ids, []string{near.ID, second.ID, far.ID}) {
		t.Errorf("after delete: search with chunks = %v, want %v", ids, []string{near.ID, second.ID, far.ID})
	}
	checkMemory(t, "second long memory after delete", get(t, e.s, a, second.ID), second)

	// Upserted again without chunk vectors (re-embedded as one text), the
	// memory is scored by its vector alone.
	second.ChunkVectors = nil
	upsert(t, e.s, second)
	checkMemory(t, "second memory without chunks", get(t, e.s, a, second.ID), second)
	hits = search(t, e.s, store.Query{Tenant: a, Vector: query, K: 10, Chunks: true})
	for _, h := range hits {
		if h.Memory.ID == second.ID && math.Abs(h.Score) > scoreTolerance {
			t.Errorf("second memory without chunks scores %.6f, want its vector's 0", h.Score)
		}
	}
	if e.h.Reopen != nil {
		e.reopen(t)
		checkMemory(t, "second memory without chunks after a restart", get(t, e.s, a, second.ID), second)
	}
}

// testChunkVectorsInvalid: chunk vectors need a vector of their width, and
// a batch with a bad one is refused whole.
func testChunkVectorsInvalid(t *testing.T, e *env) {
	a := tenant(t, "a")
	ok := e.basic(t, a, 0, e.vec(1, 0, 0, 0))
	for _, tc := range []struct {
		name string
		edit func(m *memory.Memory)
	}{
		{"no vector", func(m *memory.Memory) { m.Vector, m.ChunkVectors = nil, [][]float32{e.vec(1, 0, 0, 0)} }},
		{"other width", func(m *memory.Memory) { m.ChunkVectors = [][]float32{e.vec(1, 0, 0, 0), {1, 0, 0}} }},
		{"zero vector", func(m *memory.Memory) { m.ChunkVectors = [][]float32{make([]float32, e.h.Dim)} }},
		{"not finite", func(m *memory.Memory) {
			v := e.vec(1, 0, 0, 0)
			v[1] = float32(math.NaN())
			m.ChunkVectors = [][]float32{v}
		}},
		{"too many", func(m *memory.Memory) {
			m.ChunkVectors = make([][]float32, store.MaxChunkVectors+1)
			for i := range m.ChunkVectors {
				m.ChunkVectors[i] = e.vec(1, 0, 0, 0)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := e.basic(t, a, 1, e.vec(0, 1, 0, 0))
			tc.edit(&bad)
			err := e.s.Upsert(t.Context(), []memory.Memory{ok, bad})
			if !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("upsert = %v, want memory.ErrInvalid", err)
			}
			if n := count(t, e.s, a, store.Filter{}); n != 0 {
				t.Fatalf("refused batch left %d memories", n)
			}
		})
	}
}
