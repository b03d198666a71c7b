package local

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/internal/cputime"
	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSearchTextTopK measures BM25 top-k over 100k memories in one
// tenant with the recall benchmark's corpus (internal/bench/corpus.go: 6 to
// 16 words from a 4000-word Zipf vocabulary, s = 1.1) and queries of 2 to 6
// words, which often include common ones. It runs each query the way
// SearchText picks (auto), with the choice it made before MaxScore (old:
// sparse or dense) and with each path forced; besides time it reports the
// process CPU time per query (steadier than ns/op on a shared machine), the
// postings read per query and the share of queries pruned.
func BenchmarkSearchTextTopK(b *testing.B) {
	const n = 100_000
	s, queries := recallTextStore(b, n)
	defer func() { s.Close() }()
	p := s.partition("bench")
	filters := []struct {
		name string
		f    store.Filter
	}{
		{"all", store.Filter{}},
		{"tag_third", store.Filter{Tags: []string{"t1"}}},
		{"tag_1pct", store.Filter{Tags: []string{"rare"}}},
	}
	for _, k := range []int{10, 200} {
		for _, fc := range filters {
			for _, path := range []string{"old", "auto", "dense", "sparse", "maxscore"} {
				b.Run("k="+strconv.Itoa(k)+"/"+fc.name+"/"+path, func(b *testing.B) {
					defer forceBenchPath(b, path)()
					read, pruned := 0, 0
					p.mu.RLock()
					for _, q := range queries {
						qv := lexical.QueryVector(q)
						_, r := s.scanText(p, qv, k, &fc.f)
						read += r
						if prunes(p.lex.postingsOf(qv), k, len(p.lex.docRow)) {
							pruned++
						}
					}
					p.mu.RUnlock()
					i := 0
					cpu := cputime.Process()
					for b.Loop() {
						q := queries[i%len(queries)]
						if _, err := s.SearchText(b.Context(), store.TextQuery{Tenant: "bench", Text: q, K: k, Filter: fc.f}); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(read)/float64(len(queries)), "postings/op")
					b.ReportMetric(float64(pruned)/float64(len(queries)), "pruned/op")
				})
			}
		}
	}
}

// forceBenchPath is forceTextPath plus "auto" (leave the choice alone) and
// "old" (choose as before MaxScore).
func forceBenchPath(b *testing.B, path string) (restore func()) {
	switch path {
	case "auto":
		return func() {}
	case "old":
		minPostings := pruneMinPostings
		pruneMinPostings = 1 << 62
		return func() { pruneMinPostings = minPostings }
	}
	return forceTextPath(b, path)
}

// recallTextStore fills one tenant with n memories of the recall
// benchmark's corpus (1% tagged "rare") and returns 512 queries.
func recallTextStore(b *testing.B, n int) (*Store, []string) {
	b.Helper()
	s, err := Open(b.TempDir(), WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	words := recallVocab(4000)
	sentence := func(r *rand.Rand, lo, hi int) string {
		z := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
		parts := make([]string, lo+r.IntN(hi-lo+1))
		for i := range parts {
			parts[i] = words[z.Uint64()]
		}
		return strings.Join(parts, " ")
	}
	const batch = 1000
	mems := make([]memory.Memory, 0, batch)
	for i := 0; i < n; i += batch {
		mems = mems[:0]
		for j := i; j < min(i+batch, n); j++ {
			m := testMemory("bench", j, nil)
			m.Content = sentence(rand.New(rand.NewPCG(2, uint64(j))), 6, 16)
			if j%100 == 0 {
				m.Tags = append(m.Tags, "rare")
			}
			mems = append(mems, m)
		}
		if err := s.Upsert(b.Context(), mems); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 512)
	for i := range queries {
		queries[i] = sentence(rand.New(rand.NewPCG(3, uint64(i))), 2, 6)
	}
	return s, queries
}

// recallVocab is pkg/cli's corpus vocabulary: pseudo-words of 2 to 4
// syllables, shorter ones first (the most frequent words are short).
func recallVocab(size int) []string {
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa",
		"do", "gu", "ba", "fe", "hi", "jo", "ku", "ly", "mo", "nu", "po", "ri", "se", "ti", "wa"}
	seen := make(map[string]bool, size)
	words := make([]string, 0, size)
	r := rand.New(rand.NewPCG(0x5eed0002, 0))
	for len(words) < size {
		var sb strings.Builder
		for n := 2 + r.IntN(3); n > 0; n-- {
			sb.WriteString(syll[r.IntN(len(syll))])
		}
		if w := sb.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	slices.SortStableFunc(words, func(a, b string) int { return len(a) - len(b) })
	return words
}
