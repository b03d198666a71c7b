package local

import (
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSearchDays times the time channel's store call: one tenant of
// 100k memories over two years (137 a day; one in five says "yesterday"),
// the dense search restricted to a window's days through the day index.
func BenchmarkSearchDays(b *testing.B) {
	s, err := Open(b.TempDir(), WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n, span = 100_000, 730 * 24 * time.Hour
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	mems := make([]memory.Memory, 0, 1000)
	for i := 0; i < n; i += 1000 {
		mems = mems[:0]
		for j := i; j < i+1000; j++ {
			m := testMemory("bench", j, seededVector(uint64(j), benchDim))
			m.CreatedAt = start.Add(time.Duration(j) * (span / n))
			if j%5 == 0 {
				m.Content = "Yesterday I worked on task " + strconv.Itoa(j)
			}
			mems = append(mems, m)
		}
		if err := s.Upsert(b.Context(), mems); err != nil {
			b.Fatal(err)
		}
	}
	// Let the index's background training finish: it is not what is timed.
	p := s.partition("bench")
	for {
		p.mu.RLock()
		done := p.ivf != nil && !p.training
		p.mu.RUnlock()
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	at := start.AddDate(1, 2, 3)
	for _, days := range []int{1, 7, 31} {
		b.Run(strconv.Itoa(days)+"d", func(b *testing.B) {
			q := store.Query{Tenant: "bench", Vector: seededVector(1<<40, benchDim), K: 50, Chunks: true,
				Filter: store.Filter{Days: store.WindowDays(at, at.AddDate(0, 0, days))}}
			for b.Loop() {
				if hits, err := s.Search(b.Context(), q); err != nil || len(hits) != 50 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
		})
	}
}
