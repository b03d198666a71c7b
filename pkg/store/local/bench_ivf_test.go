package local

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// BenchmarkSearchIVF times a dense top-10 search of one tenant of 100k
// clustered 384-dim vectors through its IVF index (and, for comparison,
// the int8 scan and the exact scan of the same tenant).
func BenchmarkSearchIVF(b *testing.B) {
	cfg := DefaultConfig()
	cfg.IndexMinRows = 50_000
	s, err := Open(b.TempDir(), WithLogger(discardLogger()), WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := newIVFCorpusDim(21, 2000, benchDim)
	for lo := 0; lo < 100_000; lo += 1000 {
		batch := make([]memory.Memory, 0, 1000)
		for i := lo; i < lo+1000; i++ {
			batch = append(batch, testMemory("bench", i, c.next()))
		}
		if err := s.Upsert(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	for s.Stats().IndexTraining > 0 || s.Stats().Indexed == 0 {
		waitBriefly()
	}
	queries := make([]store.Query, 64)
	for i := range queries {
		queries[i] = store.Query{Tenant: "bench", Vector: c.next(), K: 10}
	}
	for _, mode := range []string{"ivf", "int8-scan", "exact"} {
		b.Run(mode, func(b *testing.B) {
			p := s.partition("bench")
			var saved *ivfIndex
			if mode != "ivf" {
				p.mu.Lock()
				saved, p.ivf = p.ivf, nil
				p.mu.Unlock()
			}
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if mode == "exact" {
					_, err = s.SearchExact(b.Context(), q)
				} else {
					_, err = s.Search(b.Context(), q)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if saved != nil {
				p.mu.Lock()
				p.ivf = saved
				p.mu.Unlock()
			}
		})
	}
}
