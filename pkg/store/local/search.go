package local

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// defaultSearchChunk is the fewest rows worth handing to another goroutine.
const defaultSearchChunk = 4096

// Search returns the k memories of the tenant most similar to the query
// vector by exact cosine similarity, best first, among those matching the
// filter. Memories without a vector are never hits.
func (s *Store) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	if q.K < 1 {
		return nil, fmt.Errorf("search tenant %s: k must be positive (got %d): %w", q.Tenant, q.K, memory.ErrInvalid)
	}
	if len(q.Vector) == 0 {
		return nil, fmt.Errorf("search tenant %s: query vector is empty: %w", q.Tenant, memory.ErrInvalid)
	}
	vec, err := normalized(q.Vector)
	if err != nil {
		return nil, fmt.Errorf("search tenant %s: query %w", q.Tenant, err)
	}
	p := s.partition(q.Tenant)
	if p == nil {
		return []store.Hit{}, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.dim == 0 {
		return []store.Hit{}, nil
	}
	if len(vec) != p.dim {
		return nil, fmt.Errorf("search tenant %s: query vector has %d dims but the tenant stores %d-dim vectors: %w",
			q.Tenant, len(vec), p.dim, memory.ErrInvalid)
	}
	best := s.scan(p, vec, q.K, &q.Filter)
	hits := make([]store.Hit, len(best))
	for i, c := range best {
		hits[i] = store.Hit{Memory: p.memoryAt(c.row), Score: float64(max(-1, min(1, c.score)))}
	}
	return hits, nil
}

// scan scores every row, split across goroutines when the partition is big
// enough to pay for them, and merges the per-chunk top k. The caller holds
// p.mu.RLock.
func (s *Store) scan(p *partition, vec []float32, k int, f *store.Filter) []cand {
	id := func(row int) string { return p.recs[row].ID }
	n := len(p.recs)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/max(1, s.opts.searchChunk)))
	if workers == 1 {
		t := newTopK(k, id)
		scanRows(p, vec, f, 0, n, t)
		return t.sorted()
	}
	parts := make([]*topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		parts[w] = newTopK(k, id)
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { scanRows(p, vec, f, lo, hi, parts[w]) })
	}
	wg.Wait()
	t := newTopK(k, id)
	for _, part := range parts {
		for _, c := range part.items {
			t.push(c)
		}
	}
	return t.sorted()
}

func scanRows(p *partition, vec []float32, f *store.Filter, lo, hi int, t *topK) {
	dim, dot := p.dim, dotKernel()
	for i := lo; i < hi; i++ {
		if !p.hasVec[i] || !matches(&p.recs[i], f) {
			continue
		}
		t.push(cand{score: dot(vec, p.slab[i*dim:(i+1)*dim]), row: i})
	}
}
