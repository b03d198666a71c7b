package local

import (
	"context"
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// SearchText returns the k memories of the tenant with the highest BM25
// score for the query text, best first, among those matching the filter.
// IDF counts the tenant's memories that have any term. Equal scores rank by
// ascending id.
func (s *Store) SearchText(ctx context.Context, q store.TextQuery) ([]store.Hit, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	if q.K < 1 {
		return nil, fmt.Errorf("search text in tenant %s: k must be positive (got %d): %w", q.Tenant, q.K, memory.ErrInvalid)
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("search text in tenant %s: query text is empty: %w", q.Tenant, memory.ErrInvalid)
	}
	qv := lexical.QueryVector(q.Text)
	p := s.partition(q.Tenant)
	if p == nil || qv.Len() == 0 {
		return []store.Hit{}, nil
	}
	if !s.rlock(p) {
		return nil, store.ErrClosed
	}
	defer p.mu.RUnlock()
	best, _ := s.scanText(p, qv, q.K, &q.Filter)
	hits := make([]store.Hit, len(best))
	for i, c := range best {
		m, err := p.memoryIn(c.row, q.Scratch)
		if err != nil {
			return nil, fmt.Errorf("search text in tenant %s: %w", q.Tenant, err)
		}
		hits[i] = store.Hit{Memory: m, Score: float64(c.score)}
	}
	return hits, nil
}

// scanText keeps the best k documents sharing a term with the query that
// pass the filter; the filter is only checked for documents that would make
// the current shortlist. Queries with many postings are scored with MaxScore
// pruning, others term at a time into an accumulator: a sparse one when few
// documents hold the terms, else a dense one scanned whole. It also returns
// the postings it read. The caller holds p.mu.RLock.
func (s *Store) scanText(p *partition, qv lexical.SparseVector, k int, f *store.Filter) ([]cand, int) {
	rf, ok := p.compileFilter(f)
	if !ok {
		return nil, 0
	}
	x := p.lex
	best := newShortlist(k)
	consider := func(d int, score float32) {
		if score == 0 || score < best.floor {
			return
		}
		row := x.docRow[d]
		if row < 0 || !p.match(&rf, int(row)) {
			return
		}
		best.add(cand{score: score, row: int(row)})
	}
	postings := x.postingsOf(qv)
	read := postings
	switch {
	case prunes(postings, k, len(x.docRow)):
		accept := func(d uint32) bool {
			row := x.docRow[d]
			return row >= 0 && p.match(&rf, int(row))
		}
		read = x.maxScore(qv, k, accept, func(d uint32, score float32) {
			best.add(cand{score: score, row: int(x.docRow[d])})
		})
	case postings*sparseScoreRatio < len(x.docRow):
		// Few documents hold the query's terms: visit only those, and
		// leave the buffer zeroed for the next search (no pass over every
		// document, no clear).
		accp := s.accumulator(len(x.docRow))
		acc := (*accp)[:len(x.docRow)]
		docs := x.scoreSparse(qv, acc, s.touched())
		for _, d := range docs {
			consider(int(d), acc[d])
			acc[d] = 0
		}
		s.touchedPool.Put(&docs)
		*accp = (*accp)[:0] // zeroed: accumulator need not clear it
		s.accPool.Put(accp)
	default:
		accp := s.accumulator(len(x.docRow))
		acc := (*accp)[:len(x.docRow)]
		x.score(qv, acc)
		for d, score := range acc {
			if score != 0 && score >= best.floor { // most fail here: no call
				consider(d, score)
			}
		}
		s.accPool.Put(accp)
	}
	best.cut()
	// The shortlist holds the k best and their ties; ids break the ties.
	t := newTopK(k, p.rowID)
	for _, c := range best.buf {
		t.push(c)
	}
	return t.sorted(), read
}

// sparseScoreRatio: a query whose terms' postings hold fewer than one
// document in sparseScoreRatio is scored by visiting those documents only
// (a variable for the tests, which force either path).
var sparseScoreRatio = 8

// pruneMinPostings and pruneMinPerK: a query is scored with MaxScore
// pruning when its terms have at least pruneMinPostings postings and at
// least pruneMinPerK per result asked for; below that, visiting every
// posting costs less than keeping the threshold. Variables for the tests,
// which force each path.
var (
	pruneMinPostings = 4096
	pruneMinPerK     = 16
)

// prunes reports whether MaxScore should score a query whose terms have
// the given postings, asking for k of n documents.
func prunes(postings, k, n int) bool {
	return postings >= pruneMinPostings && postings >= pruneMinPerK*k
}

// accumulator returns a zeroed score buffer of at least n entries, reused
// across searches so that a big tenant's queries do not each allocate one.
// A buffer put back with length 0 is known to be zeroed already (the
// sparse path clears what it touched).
func (s *Store) accumulator(n int) *[]float32 {
	if p, ok := s.accPool.Get().(*[]float32); ok && cap(*p) >= n {
		if len(*p) > 0 {
			clear(*p)
		}
		*p = (*p)[:n]
		return p
	}
	buf := make([]float32, n)
	return &buf
}

// touched returns an empty document list for a sparse scoring.
func (s *Store) touched() []uint32 {
	if p, ok := s.touchedPool.Get().(*[]uint32); ok {
		return (*p)[:0]
	}
	return nil
}
