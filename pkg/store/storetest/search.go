package storetest

import (
	"math"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// rankCorpus is seven hand-made vectors with distinct cosines to both test
// queries (c is deliberately not unit length), plus one memory without a
// vector.
func (e *env) rankCorpus(t *testing.T, ten string) (map[string]memory.Memory, memory.Memory) {
	vecs := map[string][]float32{
		"a": {1, 0, 0, 0},
		"b": {0.9, 0.1, 0, 0},
		"c": {3, 4, 0, 0},
		"d": {0, 1, 0, 0},
		"e": {-1, 0.2, 0, 0},
		"f": {0.5, 0.5, 0.5, 0.5},
		"g": {0.7, 0, 0.7, 0.1},
	}
	mems := make(map[string]memory.Memory, len(vecs))
	n := 0
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		mems[name] = e.basic(t, ten, n, e.vec(vecs[name]...))
		n++
	}
	return mems, e.basic(t, ten, n, nil)
}

func testSearchRanking(t *testing.T, e *env) {
	ten := tenant(t, "a")
	mems, lex := e.rankCorpus(t, ten)
	for _, m := range mems {
		upsert(t, e.s, m) // one by one, in map order: ranking must not depend on it
	}
	upsert(t, e.s, lex)
	for _, tc := range []struct {
		name  string
		query []float32
		want  []string
	}{
		// Every query's cosines are at least 0.02 apart, so the order is exact.
		// a 1, b .994, g .704, c .6, f .5, d 0, e -.981
		{"along x", e.vec(1, 0, 0, 0), []string{"a", "b", "g", "c", "f", "d", "e"}},
		// d .941, c .866, f .706, g .331, b .291, a .188, e 0
		{"mostly y", e.vec(0.2, 1, 0.3, 0), []string{"d", "c", "f", "g", "b", "a", "e"}},
		// c .950, d .864, f .778, b .525, a .432, g .330, e -.254
		{"y and x", e.vec(0.5, 1, 0, 0.3), []string{"c", "d", "f", "b", "a", "g", "e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := search(t, e.s, store.Query{Tenant: ten, Vector: tc.query, K: 10})
			if len(hits) != len(tc.want) {
				t.Fatalf("got %d hits, want %d (the memory without a vector never matches)", len(hits), len(tc.want))
			}
			for i, name := range tc.want {
				m := mems[name]
				h := hits[i]
				if h.Memory.ID != m.ID {
					t.Errorf("hit %d is %s (score %.4f), want %s", i, h.Memory.Content, h.Score, m.Content)
					continue
				}
				want := cosine(tc.query, m.Vector)
				if math.Abs(h.Score-want) > scoreTolerance {
					t.Errorf("hit %d (%s) scores %.6f, want %.6f", i, name, h.Score, want)
				}
			}
		})
	}
}

func testSearchK(t *testing.T, e *env) {
	ten := tenant(t, "a")
	mems, lex := e.rankCorpus(t, ten)
	all := []memory.Memory{lex}
	for _, m := range mems {
		all = append(all, m)
	}
	upsert(t, e.s, all...)
	q := e.vec(1, 0, 0, 0)
	order := []string{"a", "b", "g", "c", "f", "d", "e"}
	for _, tc := range []struct {
		k, want int
	}{{1, 1}, {3, 3}, {7, 7}, {8, 7}, {1000, 7}} {
		hits := search(t, e.s, store.Query{Tenant: ten, Vector: q, K: tc.k})
		if len(hits) != tc.want {
			t.Errorf("k=%d: %d hits, want %d", tc.k, len(hits), tc.want)
			continue
		}
		for i, h := range hits {
			if h.Memory.ID != mems[order[i]].ID {
				t.Errorf("k=%d: hit %d is %s, want %s", tc.k, i, h.Memory.Content, mems[order[i]].Content)
			}
		}
	}
	for _, k := range []int{0, -1} {
		if _, err := e.s.Search(t.Context(), store.Query{Tenant: ten, Vector: q, K: k}); err == nil {
			t.Errorf("search with k=%d succeeded, want an error", k)
		}
	}
	if _, err := e.s.Search(t.Context(), store.Query{Tenant: ten, K: 3}); err == nil {
		t.Error("search without a query vector succeeded, want an error")
	}
	// Filtered down below k, the hits are what matches.
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: q, K: 5, Filter: store.Filter{Namespaces: []string{"elsewhere"}}})
	if len(hits) != 0 {
		t.Errorf("search filtered to nothing returned %d hits", len(hits))
	}
}

// testSearchTerms: a dense hit asked about Query.Terms says whether its
// indexed text (content, key and tags) holds one of the terms — after a
// rewrite, of its new text — or TermsUnknown when the store cannot tell
// (then KnowsTerms must be off); unasked, every hit is TermsUnknown.
func testSearchTerms(t *testing.T, e *env) {
	ten := tenant(t, "a")
	mk := func(n int, content, key string, tags []string) memory.Memory {
		m := e.basic(t, ten, n, e.vec(1, float32(n)/10, 0, 0))
		m.Content, m.Key, m.Tags = content, key, tags
		return m
	}
	harbour := mk(0, "The harbour lights were beautiful tonight", "", nil)
	bike := mk(1, "Fixed the bicycle chain before work", "", nil)
	tagged := mk(2, "Booked the ferry for Saturday", "", []string{"sailing"})
	keyed := mk(3, "Chose the blue one", "boat-colour", nil)
	rewritten := mk(4, "The harbour was closed for repairs", "", nil)
	upsert(t, e.s, harbour, bike, tagged, keyed, rewritten)
	rewritten.Content = "Went climbing in the hills"
	upsert(t, e.s, rewritten)

	want := map[string]store.TermMatch{
		harbour.ID:   store.TermsSome, // "harbours" stems as "harbour"
		bike.ID:      store.TermsNone,
		tagged.ID:    store.TermsSome, // its tag
		keyed.ID:     store.TermsSome, // a part of its key
		rewritten.ID: store.TermsNone, // its old text named the harbour
	}
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10, Terms: "harbours, sailing or a boat?"})
	if len(hits) != len(want) {
		t.Fatalf("got %d hits, want %d", len(hits), len(want))
	}
	for _, h := range hits {
		switch {
		case h.Terms == store.TermsUnknown && !e.h.KnowsTerms:
		case h.Terms != want[h.Memory.ID]:
			t.Errorf("memory %q: terms %d, want %d", h.Memory.Content, h.Terms, want[h.Memory.ID])
		}
	}
	for _, h := range search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10}) {
		if h.Terms != store.TermsUnknown {
			t.Errorf("memory %q: terms %d without Query.Terms, want unknown", h.Memory.Content, h.Terms)
		}
	}
}
