package qdrant

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Upsert validates the whole batch, then writes it in one request with
// wait=true, so a nil error means Qdrant has applied it. One bad memory
// rejects the batch with nothing sent. A later memory with the same id wins.
func (s *Store) Upsert(ctx context.Context, mems []memory.Memory) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(mems) == 0 {
		return nil
	}
	points := make([]*qdrant.PointStruct, 0, len(mems))
	at := make(map[string]int, len(mems))
	for i := range mems {
		p, err := s.point(mems[i])
		if err != nil {
			return fmt.Errorf("upsert memory %d (%s): %w", i, mems[i].ID, err)
		}
		// Qdrant applies duplicates in order too, but one point per id
		// keeps the request small and the outcome obvious.
		if j, dup := at[mems[i].ID]; dup {
			points[j] = p
			continue
		}
		at[mems[i].ID] = len(points)
		points = append(points, p)
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	if _, err := s.client.Upsert(cctx, &qdrant.UpsertPoints{
		CollectionName: s.collection,
		Wait:           qdrant.PtrOf(true),
		Points:         points,
	}); err != nil {
		return s.wrap(err, "upsert %d memories into %s", len(points), s.collection)
	}
	return nil
}

// point validates m and turns it into a Qdrant point: its dense vector
// normalised (what a cosine collection keeps anyway) and its BM25 vector.
func (s *Store) point(m memory.Memory) (*qdrant.PointStruct, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := checkID(m.ID); err != nil {
		return nil, err
	}
	vectors := map[string]*qdrant.Vector{}
	if len(m.Vector) > 0 {
		if len(m.Vector) != s.dim {
			return nil, fmt.Errorf("vector has %d dims, the collection %d: %w", len(m.Vector), s.dim, store.ErrDimension)
		}
		v, err := normalized(m.Vector)
		if err != nil {
			return nil, err
		}
		vectors[denseVector] = qdrant.NewVectorDense(v)
		chunks, err := store.NormalizedChunks(v, m.ChunkVectors)
		if err != nil {
			return nil, err
		}
		if len(chunks) > 0 && s.chunks {
			vectors[chunkVector] = qdrant.NewVectorMulti(append(chunks, v))
		}
	} else if len(m.ChunkVectors) > 0 {
		if _, err := store.NormalizedChunks(nil, m.ChunkVectors); err != nil {
			return nil, err
		}
	}
	if lex := lexical.MemoryVector(m); lex.Len() > 0 {
		vectors[sparseVector] = qdrant.NewVectorSparse(lex.Indices, lex.Values)
	}
	return &qdrant.PointStruct{
		Id:      qdrant.NewIDUUID(m.ID),
		Payload: toPayload(m),
		Vectors: qdrant.NewVectorsMap(vectors),
	}, nil
}

// checkID accepts ids in canonical UUID form (lowercase, hyphenated), the
// only form Qdrant gives back unchanged.
func checkID(id string) error {
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return &memory.FieldError{Field: "id", Reason: fmt.Sprintf("must be a lowercase hyphenated UUID for Qdrant (got %q)", id)}
	}
	return nil
}

// normalized is store.Normalized: one rule for every engine.
func normalized(v []float32) ([]float32, error) { return store.Normalized(v) }

// Delete removes the tenant's memories with these ids; unknown ids and ids
// of other tenants are left alone.
func (s *Store) Delete(ctx context.Context, tenant string, ids ...string) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	return s.deleteIn(ctx, s.collection, tenant, ids)
}

// deleteIn removes the tenant's points with these ids from a collection.
func (s *Store) deleteIn(ctx context.Context, collection, tenant string, ids []string) error {
	pids := pointIDs(ids)
	if len(pids) == 0 {
		return nil
	}
	f := tenantFilter(tenant)
	f.Must = append(f.Must, qdrant.NewHasID(pids...))
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	if _, err := s.client.Delete(cctx, &qdrant.DeletePoints{
		CollectionName: collection,
		Wait:           qdrant.PtrOf(true),
		Points:         qdrant.NewPointsSelectorFilter(f),
	}); err != nil {
		return s.wrap(err, "delete %d memories of tenant %s from %s", len(pids), tenant, collection)
	}
	return nil
}

// pointIDs keeps the ids a point can have; others cannot exist.
func pointIDs(ids []string) []*qdrant.PointId {
	out := make([]*qdrant.PointId, 0, len(ids))
	for _, id := range ids {
		if checkID(id) == nil {
			out = append(out, qdrant.NewIDUUID(id))
		}
	}
	return out
}
