package local

import (
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSearchText measures BM25 top-10 over 100k memories in one tenant
// (Zipf-distributed words from a 4000-word vocabulary, 3-8 term queries),
// alone and with the dense search a hybrid recall runs next to it, and the
// reopen that rebuilds the index. It reports mean and p99 latency and the
// index's bytes per memory.
func BenchmarkSearchText(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	s, queries := textBenchStore(b, dir, n)
	defer func() { s.Close() }()
	p := s.partition("bench")
	p.mu.RLock()
	indexBytes := p.lex.bytes()
	p.mu.RUnlock()

	for _, tc := range []struct {
		name   string
		filter store.Filter
		dense  bool
		k      int
	}{
		{"100k", store.Filter{}, false, 10},
		{"100k_tag_filter", store.Filter{Tags: []string{"t1"}}, false, 10},
		{"100k_hybrid", store.Filter{}, true, 10},
		// recall's candidates per channel: the hits' decoding weighs
		{"100k_hybrid_k200", store.Filter{}, true, 200},
	} {
		b.Run(tc.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 1024)
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				start := time.Now()
				hits, err := s.SearchText(b.Context(), store.TextQuery{Tenant: "bench", Text: q, K: tc.k, Filter: tc.filter})
				if err != nil || len(hits) == 0 {
					b.Fatalf("search text %q: %d hits, %v", q, len(hits), err)
				}
				if tc.dense {
					if _, err := s.Search(b.Context(), store.Query{Tenant: "bench", Vector: seededVector(uint64(i)<<32, benchDim), K: tc.k, Filter: tc.filter}); err != nil {
						b.Fatal(err)
					}
				}
				lat = append(lat, time.Since(start))
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
			b.ReportMetric(float64(percentile(lat, 0.99).Nanoseconds())/1e6, "p99-ms")
			b.ReportMetric(float64(indexBytes)/n, "index-B/memory")
		})
	}
	b.Run("reopen_100k", func(b *testing.B) {
		for b.Loop() {
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			var err error
			if s, err = Open(dir, WithLogger(discardLogger())); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
	})
}

// textBenchStore fills one tenant with n memories with text and vectors,
// and returns queries for it.
func textBenchStore(b *testing.B, dir string, n int) (*Store, []string) {
	b.Helper()
	s, err := Open(dir, WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	c := newTextCorpus(1, 4000)
	const batch = 1000
	mems := make([]memory.Memory, 0, batch)
	for i := 0; i < n; i += batch {
		mems = mems[:0]
		for j := i; j < min(i+batch, n); j++ {
			m := testMemory("bench", j, seededVector(uint64(j), benchDim))
			m.Content = c.sentence()
			mems = append(mems, m)
		}
		if err := s.Upsert(b.Context(), mems); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([]string, 512)
	for i := range queries {
		queries[i] = c.query()
	}
	return s, queries
}

func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
