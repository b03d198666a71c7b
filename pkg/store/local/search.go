package local

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// defaultSearchChunk is the fewest rows worth handing to another goroutine.
const defaultSearchChunk = 4096

// Search returns the k memories of the tenant most similar to the query
// vector by cosine similarity, best first, among those matching the filter.
// When more than Config.ApproxMinRows memories match, the ranking comes
// from the tenant's IVF index once trained (see scanIVF) or else an int8
// scan, re-scored exactly (see scanApprox), else from an exact scan. Scores are always exact. Memories without a vector are never hits.
// With q.Chunks, a memory with chunk vectors scores the best of its vector
// and theirs (see chunks.go).
func (s *Store) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	return s.search(ctx, q, false)
}

// SearchExact is Search without approximation, whatever the partition's
// size: the reference that benchmarks and quality checks compare with.
func (s *Store) SearchExact(ctx context.Context, q store.Query) ([]store.Hit, error) {
	return s.search(ctx, q, true)
}

func (s *Store) search(ctx context.Context, q store.Query, exact bool) ([]store.Hit, error) {
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
	if !s.rlock(p) {
		return nil, store.ErrClosed
	}
	defer p.mu.RUnlock()
	if p.dim == 0 {
		return []store.Hit{}, nil
	}
	if len(vec) != p.dim {
		return nil, fmt.Errorf("search tenant %s: query vector has %d dims but the tenant stores %d-dim vectors: %w",
			q.Tenant, len(vec), p.dim, store.ErrDimension)
	}
	best := s.scanMode(p, vec, q.K, &q.Filter, exact, q.Chunks)
	hits := make([]store.Hit, len(best))
	for i, c := range best {
		m, err := p.memoryIn(c.row, q.Scratch)
		if err != nil {
			return nil, fmt.Errorf("search tenant %s: %w", q.Tenant, err)
		}
		hits[i] = store.Hit{Memory: m, Score: float64(max(-1, min(1, c.score)))}
	}
	if q.Terms != "" {
		p.lex.markTerms(lexical.QueryVector(q.Terms), best, hits)
	}
	return hits, nil
}

// scan is scanMode choosing approximation by size.
func (s *Store) scan(p *partition, vec []float32, k int, f *store.Filter) []cand {
	return s.scanMode(p, vec, k, f, false, false)
}

// scanMode returns the top k rows for vec that pass f. Each worker first
// lists the rows of its share that pass the filter (reading only the
// columns); the total decides between the exact and the approximate scan,
// which the same workers then run over their lists. With chunks, rows with
// chunk vectors leave the lists and are scored by their best vector
// (scoreLong). The caller holds p.mu.RLock.
func (s *Store) scanMode(p *partition, vec []float32, k int, f *store.Filter, exact, chunks bool) []cand {
	rf, ok := p.compileFilter(f)
	if !ok {
		return nil
	}
	if rf.dated {
		return s.scanDays(p, vec, k, &rf, exact, chunks)
	}
	if !exact && s.useIVF(p, &rf, k) {
		return s.scanIVF(p, vec, k, &rf, chunks)
	}
	n := len(p.recs)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/max(1, s.opts.searchChunk)))
	lists := make([]*[]int32, workers)
	defer func() {
		for _, l := range lists {
			s.rowsPool.Put(l)
		}
	}()
	total := 0
	each(workers, func(w int) {
		lists[w] = p.candidates(&rf, w*n/workers, (w+1)*n/workers, s.rowList(n/workers+1))
	})
	var long []int32
	if chunks && p.nlong > 0 {
		for _, l := range lists {
			long = p.takeLong(l, long)
		}
	}
	for _, l := range lists {
		total += len(*l)
	}
	if total == 0 && len(long) == 0 {
		return nil
	}
	id := p.rowID
	if len(long) > 0 {
		var rest []cand
		if total > 0 {
			rest = s.scanLists(p, vec, k, lists, workers, total, exact)
		}
		return p.scoreLong(vec, long, rest, newTopK(k, id)).sorted()
	}
	return s.scanLists(p, vec, k, lists, workers, total, exact)
}

// scanDays scores the rows the day index lists for rf (never a scan of
// the partition): exactly, or through the int8 copy and an exact re-score
// of its shortlist once they are many (a month of a busy tenant). The
// caller holds p.mu.RLock.
func (s *Store) scanDays(p *partition, vec []float32, k int, rf *rowFilter, exact, chunks bool) []cand {
	rows := s.rowList(len(rf.dayRows))
	defer s.rowsPool.Put(rows)
	list := (*rows)[:0]
	rest := *rf
	rest.dated = false // every listed row is a day row: test only the rest
	for _, i := range rf.dayRows {
		if p.hasVec[i] && p.match(&rest, int(i)) {
			list = append(list, i)
		}
	}
	*rows = list
	var long []int32
	if chunks && p.nlong > 0 {
		long = p.takeLong(rows, long)
	}
	var best []cand
	switch {
	case !exact && len(*rows) >= dayApproxMin && p.quant != nil:
		best = scanApprox(p, vec, k, []*[]int32{rows}, 1)
	default:
		best = scoreExact(p, vec, *rows, newTopK(k, p.rowID)).sorted()
	}
	if len(long) > 0 {
		return p.scoreLong(vec, long, best, newTopK(k, p.rowID)).sorted()
	}
	return best
}

// dayApproxMin is the fewest day rows scored through the int8 copy.
const dayApproxMin = 2048

// scanLists returns the top k of the listed rows (total of them) for vec:
// an exact scan, or the int8 one for many rows.
func (s *Store) scanLists(p *partition, vec []float32, k int, lists []*[]int32, workers, total int, exact bool) []cand {
	id := p.rowID
	if exact || p.quant == nil || s.cfg.ApproxMinRows == 0 || total < s.cfg.ApproxMinRows {
		parts := make([]*topK, workers)
		each(workers, func(w int) { parts[w] = scoreExact(p, vec, *lists[w], newTopK(k, id)) })
		return merge(k, id, parts)
	}
	return scanApprox(p, vec, k, lists, workers)
}

// candidates appends to rows (emptied) the rows in [lo, hi) that have a
// vector and pass rf.
func (p *partition) candidates(rf *rowFilter, lo, hi int, rows *[]int32) *[]int32 {
	out := (*rows)[:0]
	for i := lo; i < hi; i++ {
		if p.hasVec[i] && p.match(rf, i) {
			out = append(out, int32(i))
		}
	}
	*rows = out
	return rows
}

// scoreExact pushes each listed row with its float32 cosine into t.
func scoreExact(p *partition, vec []float32, rows []int32, t *topK) *topK {
	dot := dotKernel()
	for _, r := range rows {
		i := int(r)
		t.push(cand{score: dot(vec, p.vecs.row(i)), row: i})
	}
	return t
}

// each runs fn(0..n-1), on n goroutines when n > 1.
func each(n int, fn func(w int)) {
	if n == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}

// merge is the top k of several partial top lists.
func merge(k int, id func(int) string, parts []*topK) []cand {
	if len(parts) == 1 && parts[0].k == k {
		return parts[0].sorted()
	}
	t := newTopK(k, id)
	for _, part := range parts {
		for _, c := range part.items {
			t.push(c)
		}
	}
	return t.sorted()
}

// rowList returns an empty pooled row list with room for n rows.
func (s *Store) rowList(n int) *[]int32 {
	if l, ok := s.rowsPool.Get().(*[]int32); ok && cap(*l) >= n {
		*l = (*l)[:0]
		return l
	}
	l := make([]int32, 0, n)
	return &l
}
