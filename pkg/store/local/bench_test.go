package local

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

const benchDim = 384

func BenchmarkUpsert(b *testing.B) {
	for _, size := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			s, err := Open(b.TempDir(), WithLogger(discardLogger()))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			batch := make([]memory.Memory, size)
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				for i := range batch {
					batch[i] = testMemory("bench", n, seededVector(uint64(n), benchDim))
					n++
				}
				if err := s.Upsert(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "memories/s")
		})
	}
}

// BenchmarkUpsertParallel shows group commit: concurrent writers share fsyncs.
func BenchmarkUpsertParallel(b *testing.B) {
	s, err := Open(b.TempDir(), WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetParallelism(8)
	var seq int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := int(atomicAdd(&seq))
			if err := s.Upsert(b.Context(), []memory.Memory{testMemory("bench", n, seededVector(uint64(n), benchDim))}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
}

func BenchmarkSearch(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
		f    store.Filter
	}{
		{"10k", 10_000, store.Filter{}},
		{"100k", 100_000, store.Filter{}},
		{"100k_tag_filter", 100_000, store.Filter{Tags: []string{"t1"}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchStore(b, tc.n)
			defer s.Close()
			q := store.Query{Tenant: "bench", Vector: seededVector(1<<40, benchDim), K: 10, Filter: tc.f}
			b.ResetTimer()
			for b.Loop() {
				hits, err := s.Search(b.Context(), q)
				if err != nil || len(hits) != 10 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
		})
	}
}

// benchStore fills one tenant with n memories of benchDim dims.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(b.TempDir(), WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	const batch = 1000
	mems := make([]memory.Memory, 0, batch)
	for i := 0; i < n; i += batch {
		mems = mems[:0]
		for j := i; j < min(i+batch, n); j++ {
			mems = append(mems, testMemory("bench", j, seededVector(uint64(j), benchDim)))
		}
		if err := s.Upsert(b.Context(), mems); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func atomicAdd(p *int64) int64 { return atomic.AddInt64(p, 1) }
