package local

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

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
		name  string
		n     int
		f     store.Filter
		exact bool
	}{
		{"10k", 10_000, store.Filter{}, false},
		{"100k", 100_000, store.Filter{}, false},
		{"100k_exact", 100_000, store.Filter{}, true},
		{"100k_tag_filter", 100_000, store.Filter{Tags: []string{"t1"}}, false},
		{"100k_namespace_filter", 100_000, store.Filter{Namespaces: []string{memory.DefaultNamespace}}, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := benchStore(b, tc.n)
			defer s.Close()
			q := store.Query{Tenant: "bench", Vector: seededVector(1<<40, benchDim), K: 10, Filter: tc.f}
			search := s.Search
			if tc.exact {
				search = s.SearchExact
			}
			b.ResetTimer()
			for b.Loop() {
				hits, err := search(b.Context(), q)
				if err != nil || len(hits) != 10 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
		})
	}
}

// BenchmarkReopen times Open on a store of 100k memories, from its log and
// from a snapshot; run with -cpuprofile to see where a reopen goes.
func BenchmarkReopen(b *testing.B) {
	dir := b.TempDir()
	benchStoreIn(b, dir, 100_000, DefaultConfig()).Close()
	for _, tc := range []struct {
		name    string
		compact bool
	}{{"log", false}, {"snapshot", true}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.compact {
				compactNow(b, dir)
			}
			for b.Loop() {
				s, err := Open(dir, WithLogger(discardLogger()))
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/op")
		})
	}
}

// compactNow opens dir with a config that compacts at once and waits until
// the snapshot replaced the log.
func compactNow(b *testing.B, dir string) {
	b.Helper()
	cfg := Config{CompactMinBytes: 1, CompactRatio: 0.01}
	s, err := Open(dir, WithLogger(discardLogger()), WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for {
		s.writeMu.Lock()
		done := !s.compacting
		s.writeMu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// benchStore fills one tenant with n memories of benchDim dims.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	return benchStoreIn(b, b.TempDir(), n, DefaultConfig())
}

func benchStoreIn(b *testing.B, dir string, n int, cfg Config) *Store {
	b.Helper()
	s, err := Open(dir, WithLogger(discardLogger()), WithConfig(cfg))
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
