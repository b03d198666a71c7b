package qdrant

import (
	"context"
	"fmt"
	"slices"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// scrollPage is how many points one scroll request returns.
const scrollPage = 256

// facetPage is how many tenants one facet request returns.
const facetPage = 10_000

// withDense asks for the dense vector only: recall needs it, nothing reads
// the sparse one back.
func withDense() *qdrant.WithVectorsSelector { return qdrant.NewWithVectorsInclude(denseVector) }

// withVectors asks for the dense vector and, where the collection has
// them, the chunk vectors: what Get, Scroll and Search return.
func (s *Store) withVectors() *qdrant.WithVectorsSelector {
	if s.chunks {
		return qdrant.NewWithVectorsInclude(denseVector, chunkVector)
	}
	return withDense()
}

// Get returns the tenant's memory with id; a memory of another tenant is
// store.ErrNotFound.
func (s *Store) Get(ctx context.Context, tenant, id string) (memory.Memory, error) {
	if err := s.usable(ctx); err != nil {
		return memory.Memory{}, err
	}
	if checkID(id) != nil {
		return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	pts, err := s.client.Get(cctx, &qdrant.GetPoints{
		CollectionName: s.collection,
		Ids:            []*qdrant.PointId{qdrant.NewIDUUID(id)},
		WithPayload:    qdrant.NewWithPayload(true),
		WithVectors:    s.withVectors(),
	})
	if err != nil {
		return memory.Memory{}, s.wrap(err, "get %s in tenant %s", id, tenant)
	}
	for _, p := range pts {
		m, err := decodePoint(p.GetId(), p.GetPayload(), p.GetVectors())
		if err != nil {
			return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, err)
		}
		if m.Tenant == tenant {
			return m, nil
		}
	}
	return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
}

// Scroll pages through the tenant's memories matching f in id order, which
// is the order Qdrant scrolls UUID points in.
func (s *Store) Scroll(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	filter := toFilter(tenant, f)
	var offset *qdrant.PointId
	for {
		cctx, cancel := s.callCtx(ctx)
		pts, next, err := s.client.ScrollAndOffset(cctx, &qdrant.ScrollPoints{
			CollectionName: s.collection,
			Filter:         filter,
			Offset:         offset,
			Limit:          qdrant.PtrOf(uint32(scrollPage)),
			WithPayload:    qdrant.NewWithPayload(true),
			WithVectors:    s.withVectors(),
		})
		cancel()
		if err != nil {
			return s.wrap(err, "scroll tenant %s in %s", tenant, s.collection)
		}
		for _, p := range pts {
			m, err := decodePoint(p.GetId(), p.GetPayload(), p.GetVectors())
			if err != nil {
				return fmt.Errorf("scroll tenant %s: %w", tenant, err)
			}
			if err := fn(m); err != nil {
				return err
			}
		}
		if next == nil || len(pts) == 0 {
			return nil
		}
		if err := s.usable(ctx); err != nil {
			return err
		}
		offset = next
	}
}

// Count is the exact number of the tenant's memories matching f.
func (s *Store) Count(ctx context.Context, tenant string, f store.Filter) (int, error) {
	if err := s.usable(ctx); err != nil {
		return 0, err
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	n, err := s.client.Count(cctx, &qdrant.CountPoints{
		CollectionName: s.collection,
		Filter:         toFilter(tenant, f),
		Exact:          qdrant.PtrOf(true),
	})
	if err != nil {
		return 0, s.wrap(err, "count tenant %s in %s", tenant, s.collection)
	}
	return int(n), nil
}

// Tenants lists, sorted, every tenant with at least one memory in the
// collection: exact facets over the tenant index, one request per
// facetPage tenants (each later page excludes the tenants already seen).
func (s *Store) Tenants(ctx context.Context) ([]string, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	var tenants []string
	for {
		req := &qdrant.FacetCounts{
			CollectionName: s.collection,
			Key:            fTenant,
			Limit:          qdrant.PtrOf(uint64(facetPage)),
			Exact:          qdrant.PtrOf(true),
		}
		if len(tenants) > 0 {
			req.Filter = &qdrant.Filter{MustNot: []*qdrant.Condition{qdrant.NewMatchKeywords(fTenant, tenants...)}}
		}
		cctx, cancel := s.callCtx(ctx)
		hits, err := s.client.Facet(cctx, req)
		cancel()
		if err != nil {
			return nil, s.wrap(err, "list tenants of %s", s.collection)
		}
		for _, h := range hits {
			if t := h.GetValue().GetStringValue(); t != "" && h.GetCount() > 0 {
				tenants = append(tenants, t)
			}
		}
		if len(hits) < facetPage {
			break
		}
	}
	slices.Sort(tenants)
	return slices.Compact(tenants), nil
}

// decodePoint rebuilds a memory from what Qdrant returned for a point.
func decodePoint(id *qdrant.PointId, payload map[string]*qdrant.Value, vecs *qdrant.VectorsOutput) (memory.Memory, error) {
	var dense []float32
	if v := vecs.GetVectors().GetVectors()[denseVector]; v != nil {
		if d := v.GetDenseVector(); d != nil {
			dense = d.GetData()
		}
	}
	m, err := fromPayload(id.GetUuid(), payload, dense)
	if err != nil {
		return m, err
	}
	m.ChunkVectors = decodeChunks(vecs.GetVectors().GetVectors()[chunkVector])
	return m, nil
}

// decodeChunks returns the chunk vectors of a chunk multivector: all its
// vectors but the last, which is the dense vector (see chunkVector).
func decodeChunks(v *qdrant.VectorOutput) [][]float32 {
	multi := v.GetMultiDense().GetVectors()
	if len(multi) < 2 {
		return nil
	}
	out := make([][]float32, len(multi)-1)
	for i := range out {
		out[i] = multi[i].GetData()
	}
	return out
}
