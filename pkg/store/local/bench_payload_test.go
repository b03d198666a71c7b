package local

import (
	"context"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkUpdatePayload writes bookkeeping for a 100k-memory tenant in
// batches of 2,000, as a consolidation epoch does; log-B/memory is what
// each update adds to the log.
func BenchmarkUpdatePayload(b *testing.B) {
	const n, batch = 100_000, 2000
	cfg := DefaultConfig()
	cfg.CompactMinBytes = 1 << 40 // the log is measured, not compacted
	s := benchStoreIn(b, b.TempDir(), n, cfg)
	defer s.Close()
	mems := make([]memory.Memory, 0, n)
	if err := s.Scroll(b.Context(), "bench", store.Filter{}, func(m memory.Memory) error {
		m.Vector = nil
		mems = append(mems, m)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	start := s.wal.size.Load()
	written, round := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		round++
		for i := 0; i < n; i += batch {
			part := mems[i:min(i+batch, n)]
			for j := range part {
				part[j].AccessCount, part[j].Epoch = round, int64(round)
			}
			if err := s.UpdatePayload(b.Context(), "bench", part); err != nil {
				b.Fatal(err)
			}
			written += len(part)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
	b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "memories/s")
	b.ReportMetric(float64(s.wal.size.Load()-start)/float64(written), "log-B/memory")
}

// BenchmarkScroll reads a whole 100k-memory tenant, with and without the
// vectors.
func BenchmarkScroll(b *testing.B) {
	s := benchStore(b, 100_000)
	defer s.Close()
	for _, tc := range []struct {
		name   string
		scroll func(context.Context, string, store.Filter, func(memory.Memory) error) error
	}{{"vectors", s.Scroll}, {"meta", s.ScrollMeta}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if err := tc.scroll(b.Context(), "bench", store.Filter{}, func(memory.Memory) error { n++; return nil }); err != nil || n != 100_000 {
					b.Fatalf("scrolled %d memories: %v", n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
		})
	}
}
