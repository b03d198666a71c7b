package local

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestSearchTextMatchesBruteForce runs enough inserts, rewrites and deletes
// to compact posting lists and renumber documents, then checks every query
// against BM25 computed from scratch in float64, before and after a reopen.
func TestSearchTextMatchesBruteForce(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir)
	ctx := t.Context()
	c := newTextCorpus(7, 300)
	rng := rand.New(rand.NewPCG(3, 4))
	live := map[int]memory.Memory{}
	next := 0
	for round := range 40 {
		var batch []memory.Memory
		for range 100 {
			n := next
			if len(live) > 0 && rng.IntN(3) == 0 {
				n = rng.IntN(next) // rewrite (or revive) an earlier one
			} else {
				next++
			}
			m := testMemory("a", n, nil)
			m.Content = c.sentence()
			m.Archived = rng.IntN(10) == 0
			if rng.IntN(4) == 0 {
				m.Tags = append(m.Tags, c.word())
			}
			batch = append(batch, m)
			live[n] = m
		}
		if err := s.Upsert(ctx, batch); err != nil {
			t.Fatal(err)
		}
		// Metadata-only rewrites keep the document as it is.
		for n, m := range live {
			live[n] = touch(m)
			if err := s.Upsert(ctx, []memory.Memory{live[n]}); err != nil {
				t.Fatal(err)
			}
			break
		}
		var gone []string
		for n := range live {
			if rng.IntN(200) < 5+round {
				gone = append(gone, live[n].ID)
				delete(live, n)
			}
		}
		if err := s.Delete(ctx, "a", gone...); err != nil {
			t.Fatal(err)
		}
		if round%8 == 7 {
			checkLexIndex(t, s.partition("a"))
		}
	}
	// 4000 texts were indexed; fewer numbers means renumbering happened.
	if p := s.partition("a"); len(p.lex.docRow) >= 4000 {
		t.Fatalf("%d document numbers after 4000 texts: never renumbered", len(p.lex.docRow))
	}
	t.Logf("%d memories, %d document numbers, %d dead", len(live), len(s.partition("a").lex.docRow), s.partition("a").lex.dead)
	mems := make([]memory.Memory, 0, len(live))
	for _, m := range live {
		mems = append(mems, m)
	}
	queries := make([]string, 30)
	for i := range queries {
		queries[i] = c.query()
	}
	checkQueries := func(stage string) {
		for _, q := range queries {
			for _, f := range []store.Filter{{}, {IncludeArchived: true}, {Tags: []string{"t1", "t2"}}} {
				hits, err := s.SearchText(ctx, store.TextQuery{Tenant: "a", Text: q, K: 15, Filter: f})
				if err != nil {
					t.Fatal(err)
				}
				compareBM25(t, stage+" "+q, hits, referenceBM25(mems, q, &f), 15)
			}
		}
	}
	check := func(stage string) {
		// Every query through the sparse scoring, the dense one and MaxScore.
		for _, path := range textPaths {
			func() {
				defer forceTextPath(t, path)()
				checkQueries(stage + " (" + path + ")")
			}()
		}
	}
	check("before reopen")
	closeT(t, s)
	s = openT(t, dir)
	defer closeT(t, s)
	checkLexIndex(t, s.partition("a"))
	check("after reopen")
}

// touch changes a memory outside its text.
func touch(m memory.Memory) memory.Memory {
	m.AccessCount++
	m.Importance = 0.75
	return m
}

// referenceBM25 scores every memory matching f from scratch, best first.
func referenceBM25(mems []memory.Memory, text string, f *store.Filter) []refHit {
	q := lexical.QueryVector(text)
	vecs := make([]lexical.SparseVector, len(mems))
	df := map[uint32]int{}
	n := 0
	for i, m := range mems {
		vecs[i] = lexical.MemoryVector(m)
		if vecs[i].Len() > 0 {
			n++
		}
		for _, t := range vecs[i].Indices {
			df[t]++
		}
	}
	var out []refHit
	for i := range mems {
		if !matches(&mems[i], f) {
			continue
		}
		var score float64
		for j, t := range vecs[i].Indices {
			if _, ok := slices.BinarySearch(q.Indices, t); ok {
				score += lexical.IDF(n, df[t]) * float64(vecs[i].Values[j])
			}
		}
		if score > 0 {
			out = append(out, refHit{mems[i].ID, score})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out
}

// compareBM25 checks hits against the reference: each score within float32
// rounding, and the top k the reference's up to ties within that rounding.
func compareBM25(t *testing.T, what string, hits []store.Hit, ref []refHit, k int) {
	t.Helper()
	const tol = 1e-4
	if len(hits) != min(k, len(ref)) {
		t.Fatalf("%s: %d hits, reference has %d", what, len(hits), min(k, len(ref)))
	}
	want := make(map[string]float64, len(ref))
	for _, r := range ref {
		want[r.id] = r.score
	}
	for i, h := range hits {
		w, ok := want[h.Memory.ID]
		if !ok || math.Abs(h.Score-w) > tol*max(1, w) {
			t.Fatalf("%s: hit %d (%s) scores %v, reference %v (found %v)", what, i, h.Memory.ID, h.Score, w, ok)
		}
		if i > 0 && (h.Score > hits[i-1].Score || h.Score == hits[i-1].Score && h.Memory.ID < hits[i-1].Memory.ID) {
			t.Fatalf("%s: hit %d out of order", what, i)
		}
	}
	if len(hits) == 0 {
		return
	}
	floor := hits[len(hits)-1].Score
	got := hitSet(hits)
	for _, r := range ref {
		if r.score > floor+tol*max(1, r.score) && !got[r.id] {
			t.Fatalf("%s: reference hit %s scoring %v is missing (last hit scores %v)", what, r.id, r.score, floor)
		}
	}
}

func hitSet(hits []store.Hit) map[string]bool {
	m := make(map[string]bool, len(hits))
	for _, h := range hits {
		m[h.Memory.ID] = true
	}
	return m
}

// checkLexIndex checks the index's invariants against the partition.
func checkLexIndex(t *testing.T, p *partition) {
	t.Helper()
	x := p.lex
	if len(x.rowDoc) != len(p.recs) {
		t.Fatalf("index has %d rows, partition %d", len(x.rowDoc), len(p.recs))
	}
	dead, indexed := 0, 0
	for _, row := range x.docRow {
		if row < 0 {
			dead++
		}
	}
	for row, d := range x.rowDoc {
		if x.docRow[d] != int32(row) {
			t.Fatalf("row %d → doc %d → row %d", row, d, x.docRow[d])
		}
		if lexical.MemoryVector(recAt(t, p, row)).Len() > 0 {
			indexed++
		}
	}
	if dead != x.dead || indexed != x.indexed {
		t.Fatalf("index counts %d dead, %d indexed; really %d, %d", x.dead, x.indexed, dead, indexed)
	}
	postings := 0
	for term, pl := range x.terms {
		liveN := 0
		for i, d := range pl.docs {
			if i > 0 && d <= pl.docs[i-1] {
				t.Fatalf("term %#x: postings not ascending", term)
			}
			if x.docRow[d] >= 0 {
				liveN++
			}
		}
		for i, w := range pl.ws[:len(pl.docs)] {
			if w > pl.max {
				t.Fatalf("term %#x: weight %v of doc %d above the list's bound %v", term, w, pl.docs[i], pl.max)
			}
		}
		if liveN != len(pl.docs)-pl.dead || liveN == 0 {
			t.Fatalf("term %#x: %d live postings, list says %d", term, liveN, len(pl.docs)-pl.dead)
		}
		postings += liveN
	}
	want := 0
	for i := range p.recs {
		want += lexical.MemoryVector(recAt(t, p, i)).Len()
	}
	if postings != want {
		t.Fatalf("index holds %d live postings, the records have %d terms", postings, want)
	}
}

func TestSearchTextTiesBreakByID(t *testing.T) {
	s := openT(t, t.TempDir())
	defer closeT(t, s)
	var ids []string
	var batch []memory.Memory
	for i := range 9 {
		m := testMemory("a", i, nil)
		m.Content = "identical words " + strconv.Itoa(i%1) // same text
		batch = append(batch, m)
		ids = append(ids, m.ID)
	}
	slices.Reverse(batch)
	if err := s.Upsert(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "a", ids[0], ids[4]); err != nil {
		t.Fatal(err)
	}
	rest := slices.Delete(slices.Delete(slices.Clone(ids), 4, 5), 0, 1)
	slices.Sort(rest)
	for _, k := range []int{1, 3, 7} {
		hits, err := s.SearchText(t.Context(), store.TextQuery{Tenant: "a", Text: "identical", K: k})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(hits))
		for i, h := range hits {
			got[i] = h.Memory.ID
		}
		if !slices.Equal(got, rest[:k]) {
			t.Errorf("k=%d: tied hits %v, want the smallest ids in order %v", k, got, rest[:k])
		}
	}
}
