package qdrant

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Search ranks the tenant's memories matching q.Filter by cosine similarity
// to q.Vector (Query API on the dense vector). Hits carry their vectors.
// With q.Chunks, the chunk multivector is searched in the same batch and
// each memory keeps the better of its two scores (see mergeChunkHits).
func (s *Store) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	req, err := s.denseRequest(q)
	if err != nil {
		return nil, err
	}
	what := "search tenant " + q.Tenant
	creq := s.chunkRequest(q, req)
	if creq == nil {
		return s.query(ctx, what, req)
	}
	res, err := s.batch(ctx, what, req, creq)
	if err != nil {
		return nil, err
	}
	return mergeChunkHits(q.K, res[0], res[1]), nil
}

// chunkRequest is the chunk multivector search beside dense request req,
// or nil when q does not ask for chunks or the collection has none.
func (s *Store) chunkRequest(q store.Query, req *qdrant.QueryPoints) *qdrant.QueryPoints {
	if !q.Chunks || !s.chunks {
		return nil
	}
	vec := req.GetQuery().GetNearest().GetDense().GetData()
	return &qdrant.QueryPoints{
		CollectionName: s.collection,
		Query:          qdrant.NewQueryMulti([][]float32{vec}),
		Using:          qdrant.PtrOf(chunkVector),
		Filter:         req.Filter,
		Limit:          req.Limit,
		WithPayload:    qdrant.NewWithPayload(true),
		WithVectors:    s.withVectors(),
	}
}

// batch runs requests as one QueryBatch and decodes each one's hits.
func (s *Store) batch(ctx context.Context, what string, reqs ...*qdrant.QueryPoints) ([][]store.Hit, error) {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	res, err := s.client.QueryBatch(cctx, &qdrant.QueryBatchPoints{
		CollectionName: s.collection,
		QueryPoints:    reqs,
	})
	if err != nil {
		return nil, s.wrap(err, "%s in %s", what, s.collection)
	}
	if len(res) != len(reqs) {
		return nil, fmt.Errorf("%s in %s: %d batch results, want %d", what, s.collection, len(res), len(reqs))
	}
	out := make([][]store.Hit, len(res))
	for i, r := range res {
		if out[i], err = decodeHits(what, r.GetResult()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeChunkHits merges the dense hits with the chunk multivector's (whose
// scores are the best of a long memory's chunks and its dense vector):
// each memory once, with its better score, best first (ties by id), at
// most k. The top k by that score is within the two lists' top k.
func mergeChunkHits(k int, dense, chunks []store.Hit) []store.Hit {
	at := make(map[string]int, len(dense)+len(chunks))
	out := make([]store.Hit, 0, len(dense)+len(chunks))
	for _, h := range slices.Concat(dense, chunks) {
		if i, ok := at[h.Memory.ID]; ok {
			out[i].Score = max(out[i].Score, h.Score)
			continue
		}
		at[h.Memory.ID] = len(out)
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b store.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Memory.ID, b.Memory.ID)
	})
	return out[:min(k, len(out))]
}

// SearchText ranks the tenant's memories matching q.Filter by BM25: the
// query's lexical.QueryVector against the bm25 sparse vectors, which Qdrant
// weighs by IDF. A text of only stopwords has no terms and matches nothing.
func (s *Store) SearchText(ctx context.Context, q store.TextQuery) ([]store.Hit, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	req, err := s.textRequest(q)
	if err != nil || req == nil {
		return nil, err
	}
	return s.query(ctx, "search text in tenant "+q.Tenant, req)
}

// SearchHybrid runs the dense and the BM25 query of q as one QueryBatch
// request, one round trip for both recall channels. Recall fuses the two
// lists itself, because every result explains its score by channel; a
// server-side fusion (prefetch + RRF) would hand back one rank with neither
// channel's score.
func (s *Store) SearchHybrid(ctx context.Context, q store.HybridQuery) (dense, lex []store.Hit, err error) {
	if err := s.usable(ctx); err != nil {
		return nil, nil, err
	}
	what := "hybrid search tenant " + q.Tenant
	dq := store.Query{Tenant: q.Tenant, Vector: q.Vector, K: q.K, Filter: q.Filter, Chunks: q.Chunks}
	dreq, err := s.denseRequest(dq)
	if err != nil {
		return nil, nil, err
	}
	treq, err := s.textRequest(store.TextQuery{Tenant: q.Tenant, Text: q.Text, K: q.K, Filter: q.Filter})
	if err != nil {
		return nil, nil, err
	}
	reqs := []*qdrant.QueryPoints{dreq}
	if treq != nil {
		reqs = append(reqs, treq)
	}
	creq := s.chunkRequest(dq, dreq)
	if creq != nil {
		reqs = append(reqs, creq)
	}
	if len(reqs) == 1 {
		dense, err = s.query(ctx, what, dreq)
		return dense, nil, err
	}
	res, err := s.batch(ctx, what, reqs...)
	if err != nil {
		return nil, nil, err
	}
	dense = res[0]
	if treq != nil {
		lex = res[1]
	}
	if creq != nil {
		dense = mergeChunkHits(q.K, dense, res[len(res)-1])
	}
	return dense, lex, nil
}

// denseRequest validates q and builds its Query API request.
func (s *Store) denseRequest(q store.Query) (*qdrant.QueryPoints, error) {
	if q.K <= 0 {
		return nil, fmt.Errorf("search tenant %s: k must be positive (got %d): %w", q.Tenant, q.K, memory.ErrInvalid)
	}
	if len(q.Vector) == 0 {
		return nil, fmt.Errorf("search tenant %s: query vector is empty: %w", q.Tenant, memory.ErrInvalid)
	}
	if len(q.Vector) != s.dim {
		return nil, fmt.Errorf("search tenant %s: query vector has %d dims but %s holds %d-dim vectors: %w",
			q.Tenant, len(q.Vector), s.collection, s.dim, store.ErrDimension)
	}
	vec, err := normalized(q.Vector)
	if err != nil {
		return nil, fmt.Errorf("search tenant %s: query %w", q.Tenant, err)
	}
	return &qdrant.QueryPoints{
		CollectionName: s.collection,
		Query:          qdrant.NewQueryDense(vec),
		Using:          qdrant.PtrOf(denseVector),
		Filter:         toFilter(q.Tenant, q.Filter),
		Limit:          qdrant.PtrOf(uint64(q.K)),
		WithPayload:    qdrant.NewWithPayload(true),
		WithVectors:    s.withVectors(),
	}, nil
}

// textRequest validates q and builds its Query API request; nil when the
// text has no terms (only stopwords), which matches nothing.
func (s *Store) textRequest(q store.TextQuery) (*qdrant.QueryPoints, error) {
	if q.K <= 0 {
		return nil, fmt.Errorf("search text in tenant %s: k must be positive (got %d): %w", q.Tenant, q.K, memory.ErrInvalid)
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("search text in tenant %s: query text is empty: %w", q.Tenant, memory.ErrInvalid)
	}
	qv := lexical.QueryVector(q.Text)
	if qv.Len() == 0 {
		return nil, nil
	}
	return &qdrant.QueryPoints{
		CollectionName: s.collection,
		Query:          qdrant.NewQuerySparse(qv.Indices, qv.Values),
		Using:          qdrant.PtrOf(sparseVector),
		Filter:         toFilter(q.Tenant, q.Filter),
		Limit:          qdrant.PtrOf(uint64(q.K)),
		WithPayload:    qdrant.NewWithPayload(true),
		WithVectors:    s.withVectors(),
	}, nil
}

// query runs one Query API request and decodes its hits, best first.
func (s *Store) query(ctx context.Context, what string, req *qdrant.QueryPoints) ([]store.Hit, error) {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	pts, err := s.client.Query(cctx, req)
	if err != nil {
		return nil, s.wrap(err, "%s in %s", what, s.collection)
	}
	return decodeHits(what, pts)
}

// decodeHits turns scored points into hits, best first as given.
func decodeHits(what string, pts []*qdrant.ScoredPoint) ([]store.Hit, error) {
	hits := make([]store.Hit, 0, len(pts))
	for _, p := range pts {
		m, err := decodePoint(p.GetId(), p.GetPayload(), p.GetVectors())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		hits = append(hits, store.Hit{Memory: m, Score: float64(p.GetScore())})
	}
	return hits, nil
}
