package storetest

import (
	"math"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// The lexical tests assume only what BM25 promises whatever the corpus
// statistics span (the tenant here; a whole Qdrant collection there): a
// rarer term weighs more, a repeated term more than a single one, a shorter
// document more than a longer one, and only shared terms score. Their words
// are unusual enough that other tests' memories do not contain them.

// textMemory is a memory with the given content and no vector.
func (e *env) textMemory(t *testing.T, ten string, n int, content string) memory.Memory {
	m := e.basic(t, ten, n, nil)
	m.Content = content
	return m
}

func searchText(t *testing.T, s store.Store, q store.TextQuery) []store.Hit {
	t.Helper()
	hits, err := s.SearchText(t.Context(), q)
	if err != nil {
		t.Fatalf("search text %q in %s k=%d: %v", q.Text, q.Tenant, q.K, err)
	}
	for i, h := range hits {
		if h.Memory.Tenant != q.Tenant {
			t.Errorf("search text of tenant %s returned memory %s of tenant %s", q.Tenant, h.Memory.ID, h.Memory.Tenant)
		}
		if !(h.Score > 0) || math.IsInf(h.Score, 0) {
			t.Errorf("hit %d (%s) scores %v, want a positive BM25 score", i, h.Memory.Content, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score+scoreTolerance {
			t.Errorf("hit %d scores %.6f, above hit %d's %.6f: not best first", i, h.Score, i-1, hits[i-1].Score)
		}
	}
	return hits
}

// textIDs searches and returns the hits' ids.
func (e *env) textIDs(t *testing.T, ten, text string, k int) []string {
	t.Helper()
	return hitIDs(searchText(t, e.s, store.TextQuery{Tenant: ten, Text: text, K: k}))
}

func idsOf(mems ...memory.Memory) []string {
	ids := make([]string, len(mems))
	for i, m := range mems {
		ids[i] = m.ID
	}
	return ids
}

func testTextRanking(t *testing.T, e *env) {
	ten := tenant(t, "a")
	docs := []string{
		"Quillfeather stores the embeddings with pgvectorix", // 0: the only pgvectorix
		"Quillfeather runs on the staging cluster",           // 1
		"Quillfeather backups run nightly",                   // 2
		"The staging cluster has three nodes",                // 3: the only node
		"Nightly backups go to object storage",               // 4
		"Redis holds the debounce locks",                     // 5: shares nothing
	}
	var mems []memory.Memory
	for i, d := range docs {
		mems = append(mems, e.textMemory(t, ten, i, d))
	}
	slices.Reverse(mems) // insertion order must not matter
	upsert(t, e.s, mems...)
	slices.Reverse(mems)

	t.Run("only matching memories", func(t *testing.T) {
		if ids := e.textIDs(t, ten, "pgvectorix", 10); !slices.Equal(ids, idsOf(mems[0])) {
			t.Fatalf("hits = %v, want only %s", ids, mems[0].ID)
		}
		if ids := e.textIDs(t, ten, "kubernetes helm", 10); len(ids) != 0 {
			t.Fatalf("a query sharing no term with any memory hit %v", ids)
		}
	})
	t.Run("both terms beat one", func(t *testing.T) {
		ids := e.textIDs(t, ten, "quillfeather pgvectorix", 10)
		if len(ids) != 3 || ids[0] != mems[0].ID || !sameIDs(ids[1:], idsOf(mems[1], mems[2])) {
			t.Fatalf("hits = %v, want %s first, then %s and %s", ids, mems[0].ID, mems[1].ID, mems[2].ID)
		}
	})
	t.Run("rare term beats common term", func(t *testing.T) {
		// node is in one memory, quillfeather in three, all four memories
		// four terms long.
		ids := e.textIDs(t, ten, "nodes quillfeather", 10)
		if len(ids) != 4 || ids[0] != mems[3].ID {
			t.Fatalf("hits = %v, want 4 with %s (the rare term) first", ids, mems[3].ID)
		}
	})
	t.Run("k", func(t *testing.T) {
		ids := e.textIDs(t, ten, "nodes quillfeather", 2)
		if len(ids) != 2 || ids[0] != mems[3].ID {
			t.Fatalf("k=2: hits = %v, want 2 with %s first", ids, mems[3].ID)
		}
	})
}

func testTextScoring(t *testing.T, e *env) {
	ten := tenant(t, "a")
	short := e.textMemory(t, ten, 0, "Lighthouse keeper")
	long := e.textMemory(t, ten, 1, "Lighthouse keeper painted every wall of the tower bright red last summer")
	twice := e.textMemory(t, ten, 2, "Kayakzor kayakzor river trip")
	once := e.textMemory(t, ten, 3, "Kayakzor canoe river trip")
	stops := e.textMemory(t, ten, 4, "The zephyrine was in the garden and it was there")
	plain := e.textMemory(t, ten, 5, "Zephyrine garden")
	upsert(t, e.s, short, long, twice, once, stops, plain)

	if ids := e.textIDs(t, ten, "lighthouse", 10); !slices.Equal(ids, idsOf(short, long)) {
		t.Errorf("length: hits = %v, want the shorter memory first %v", ids, idsOf(short, long))
	}
	if ids := e.textIDs(t, ten, "kayakzor", 10); !slices.Equal(ids, idsOf(twice, once)) {
		t.Errorf("term frequency: hits = %v, want the memory saying it twice first %v", ids, idsOf(twice, once))
	}
	// Stopwords neither match nor lengthen a memory: both score the same.
	hits := searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "zephyrine garden", K: 10})
	if !sameIDs(hitIDs(hits), idsOf(stops, plain)) {
		t.Fatalf("stopwords: hits = %v, want %v", hitIDs(hits), idsOf(stops, plain))
	}
	if math.Abs(hits[0].Score-hits[1].Score) > scoreTolerance {
		t.Errorf("stopwords: %q scores %.6f but %q scores %.6f; stopwords must not count",
			hits[0].Memory.Content, hits[0].Score, hits[1].Memory.Content, hits[1].Score)
	}
	withStops := searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "what is the zephyrine in the garden?", K: 10})
	if !sameIDs(hitIDs(withStops), hitIDs(hits)) || math.Abs(withStops[0].Score-hits[0].Score) > scoreTolerance {
		t.Errorf("stopwords in the query changed the hits: %v %v, want %v %v",
			hitIDs(withStops), hitScores(withStops), hitIDs(hits), hitScores(hits))
	}
	if ids := e.textIDs(t, ten, "what is it that they were doing", 10); len(ids) != 0 {
		t.Errorf("a query of stopwords only hit %v", ids)
	}
}

func testTextAnalysis(t *testing.T, e *env) {
	ten := tenant(t, "a")
	commit := e.textMemory(t, ten, 0, "Was committing the migrations when the build broke")
	commits := e.textMemory(t, ten, 1, "Reviewed all commits from yesterday")
	makeTest := e.textMemory(t, ten, 2, "Always run `make test` before pushing")
	snake := e.textMemory(t, ten, 3, "Rename the field to snake_case in config.yaml")
	cjk := e.textMemory(t, ten, 4, "我喜欢机器学习")
	keyed := e.textMemory(t, ten, 5, "Uses the solarized palette")
	keyed.Key, keyed.Tags = "editor/theme", []string{"appearance"}
	upsert(t, e.s, commit, commits, makeTest, snake, cjk, keyed)
	for _, tc := range []struct {
		query string
		want  []memory.Memory
	}{
		{"commit", []memory.Memory{commit, commits}},
		{"committed", []memory.Memory{commit, commits}},
		{"make test", []memory.Memory{makeTest}},
		{"pushes", []memory.Memory{makeTest}},
		{"snake_case", []memory.Memory{snake}},
		{"snake", []memory.Memory{snake}},
		{"config.yaml", []memory.Memory{snake}},
		{"yaml", []memory.Memory{snake}},
		{"机器学习", []memory.Memory{cjk}},
		{"THEME", []memory.Memory{keyed}},
		{"appearance", []memory.Memory{keyed}},
	} {
		if ids := e.textIDs(t, ten, tc.query, 10); !sameIDs(ids, idsOf(tc.want...)) {
			t.Errorf("query %q: hits = %v, want %v", tc.query, ids, idsOf(tc.want...))
		}
	}
}

func testTextIDF(t *testing.T, e *env) {
	ten := tenant(t, "a")
	fennel := e.textMemory(t, ten, 0, "Fennelwort")
	juniper := e.textMemory(t, ten, 1, "Juniperix")
	batch := []memory.Memory{fennel, juniper}
	for i := range 3 {
		batch = append(batch, e.textMemory(t, ten, 10+i, "Juniperix berries"))
	}
	upsert(t, e.s, batch...)
	// Both one-term memories weigh their term alike, so IDF alone orders
	// them: fennelwort is in 1 memory, juniperix in 4, and the rarer wins.
	const query = "fennelwort juniperix"
	if f, j := e.textRanks(t, ten, query, fennel, juniper); f > j {
		t.Fatalf("fennelwort in 1 memory, juniperix in 4: fennelwort ranks %d, juniperix %d, want it first", f, j)
	}
	batch = batch[:0]
	for i := range 6 {
		batch = append(batch, e.textMemory(t, ten, 20+i, "Fennelwort seeds"))
	}
	upsert(t, e.s, batch...)
	if f, j := e.textRanks(t, ten, query, fennel, juniper); j > f {
		t.Fatalf("fennelwort in 7 memories, juniperix in 4: juniperix ranks %d, fennelwort %d, want it first", j, f)
	}
	// Deleting them changes it back.
	var gone []string
	for _, m := range batch {
		gone = append(gone, m.ID)
	}
	if err := e.s.Delete(t.Context(), ten, gone...); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if f, j := e.textRanks(t, ten, query, fennel, juniper); f > j {
		t.Fatalf("after deleting those 6: fennelwort ranks %d, juniperix %d, want it first again", f, j)
	}
}

// textRanks returns where a and b rank among all the query's hits.
func (e *env) textRanks(t *testing.T, ten, text string, a, b memory.Memory) (int, int) {
	t.Helper()
	ids := e.textIDs(t, ten, text, 100)
	ra, rb := slices.Index(ids, a.ID), slices.Index(ids, b.ID)
	if ra < 0 || rb < 0 {
		t.Fatalf("query %q: hits %v miss %s or %s", text, ids, a.ID, b.ID)
	}
	return ra, rb
}

func testTextDeleteAndUpdate(t *testing.T, e *env) {
	ten := tenant(t, "a")
	a := e.textMemory(t, ten, 0, "Marmalade recipe uses bitter oranges")
	b := e.textMemory(t, ten, 1, "Marmalade jars are in the pantry")
	upsert(t, e.s, a, b)
	if err := e.s.Delete(t.Context(), ten, a.ID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if ids := e.textIDs(t, ten, "oranges", 10); len(ids) != 0 {
		t.Errorf("a deleted memory is still found: %v", ids)
	}
	if ids := e.textIDs(t, ten, "marmalade", 10); !slices.Equal(ids, idsOf(b)) {
		t.Errorf("hits = %v, want %v", ids, idsOf(b))
	}
	b.Content = "Chutney jars are in the cellar"
	upsert(t, e.s, b)
	if ids := e.textIDs(t, ten, "marmalade pantry", 10); len(ids) != 0 {
		t.Errorf("the old text of an updated memory is still found: %v", ids)
	}
	hits := searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "chutney cellar", K: 10})
	if len(hits) != 1 || hits[0].Memory.ID != b.ID {
		t.Fatalf("the new text is not found: %v", hitIDs(hits))
	}
	checkMemory(t, "text hit", hits[0].Memory, b)
	// A change outside the text keeps the memory found, as it now is.
	b.Layer, b.Importance = memory.LayerCore, 0.9
	upsert(t, e.s, b)
	hits = searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "chutney", K: 10})
	if len(hits) != 1 {
		t.Fatalf("hits after a metadata change = %v, want %s", hitIDs(hits), b.ID)
	}
	checkMemory(t, "text hit after a metadata change", hits[0].Memory, b)
	// A deleted id written again is found again.
	upsert(t, e.s, a)
	if ids := e.textIDs(t, ten, "oranges", 10); !slices.Equal(ids, idsOf(a)) {
		t.Errorf("re-added memory: hits = %v, want %v", ids, idsOf(a))
	}
}

func testTextTenantIsolation(t *testing.T, e *env) {
	a, b := tenant(t, "a"), tenant(t, "b")
	ma := e.textMemory(t, a, 0, "Gondolier schedules for Venice")
	mb := e.textMemory(t, b, 1, "Gondolier schedules for Venice")
	upsert(t, e.s, ma, mb)
	if ids := e.textIDs(t, a, "gondolier", 10); !slices.Equal(ids, idsOf(ma)) {
		t.Errorf("tenant a: hits = %v, want %v", ids, idsOf(ma))
	}
	if ids := e.textIDs(t, b, "gondolier", 10); !slices.Equal(ids, idsOf(mb)) {
		t.Errorf("tenant b: hits = %v, want %v", ids, idsOf(mb))
	}
	if ids := e.textIDs(t, tenant(t, "nobody"), "gondolier", 10); len(ids) != 0 {
		t.Errorf("unknown tenant: hits = %v", ids)
	}
}

func testTextInvalid(t *testing.T, e *env) {
	ten := tenant(t, "a")
	upsert(t, e.s, e.textMemory(t, ten, 0, "Harpsichord tuning"))
	for _, q := range []store.TextQuery{
		{Tenant: ten, Text: "harpsichord", K: 0},
		{Tenant: ten, Text: "harpsichord", K: -1},
		{Tenant: ten, Text: " \t", K: 3},
		{Tenant: ten, K: 3},
	} {
		if _, err := e.s.SearchText(t.Context(), q); err == nil {
			t.Errorf("search text %q k=%d succeeded, want an error", q.Text, q.K)
		}
	}
}
