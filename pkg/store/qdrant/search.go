package qdrant

import (
	"context"
	"fmt"
	"strings"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Search ranks the tenant's memories matching q.Filter by cosine similarity
// to q.Vector (Query API on the dense vector). Hits carry their vectors.
func (s *Store) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	req, err := s.denseRequest(q)
	if err != nil {
		return nil, err
	}
	return s.query(ctx, "search tenant "+q.Tenant, req)
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
	dreq, err := s.denseRequest(store.Query{Tenant: q.Tenant, Vector: q.Vector, K: q.K, Filter: q.Filter})
	if err != nil {
		return nil, nil, err
	}
	treq, err := s.textRequest(store.TextQuery{Tenant: q.Tenant, Text: q.Text, K: q.K, Filter: q.Filter})
	if err != nil {
		return nil, nil, err
	}
	if treq == nil {
		dense, err = s.query(ctx, what, dreq)
		return dense, nil, err
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	res, err := s.client.QueryBatch(cctx, &qdrant.QueryBatchPoints{
		CollectionName: s.collection,
		QueryPoints:    []*qdrant.QueryPoints{dreq, treq},
	})
	if err != nil {
		return nil, nil, s.wrap(err, "%s in %s", what, s.collection)
	}
	if len(res) != 2 {
		return nil, nil, fmt.Errorf("%s in %s: %d batch results, want 2", what, s.collection, len(res))
	}
	if dense, err = decodeHits(what, res[0].GetResult()); err != nil {
		return nil, nil, err
	}
	if lex, err = decodeHits(what, res[1].GetResult()); err != nil {
		return nil, nil, err
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
		WithVectors:    withDense(),
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
		WithVectors:    withDense(),
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
