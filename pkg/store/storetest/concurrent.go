package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

func testConcurrent(t *testing.T, e *env) {
	ten := tenant(t, "a")
	const writers, batches, perBatch = 4, 5, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var batch []memory.Memory
				for i := range perBatch {
					n := (w*batches+b)*perBatch + i
					batch = append(batch, e.basic(t, ten, n, e.vec(1, float32(n%7), float32(n%3), 0)))
				}
				if err := e.s.Upsert(t.Context(), batch); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		})
	}
	for r := range 2 {
		wg.Go(func() {
			for range 20 {
				if _, err := e.s.Search(t.Context(), store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 5}); err != nil {
					errs <- fmt.Errorf("reader %d search: %w", r, err)
					return
				}
				if _, err := e.s.SearchText(t.Context(), store.TextQuery{Tenant: ten, Text: "memory number 3", K: 5}); err != nil {
					errs <- fmt.Errorf("reader %d search text: %w", r, err)
					return
				}
				if _, err := e.s.Count(t.Context(), ten, store.Filter{}); err != nil {
					errs <- fmt.Errorf("reader %d count: %w", r, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := writers * batches * perBatch
	if n := count(t, e.s, ten, store.Filter{}); n != total {
		t.Fatalf("count after concurrent writes = %d, want %d", n, total)
	}
	for n := range total {
		get(t, e.s, ten, id(t, n))
	}
	// Every memory says "memory number"; the index took every write.
	if hits := searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "memory number", K: 1000}); len(hits) != total {
		t.Fatalf("search text after concurrent writes: %d hits, want %d", len(hits), total)
	}
}
