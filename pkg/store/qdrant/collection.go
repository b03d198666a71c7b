package qdrant

import (
	"context"
	"errors"
	"fmt"

	"github.com/qdrant/go-client/qdrant"
)

// ErrSchema is matched (errors.Is) when an existing collection does not
// have the layout this store needs, e.g. another vector dimension.
var ErrSchema = errors.New("qdrant collection layout mismatch")

// index is one payload index the store creates.
type index struct {
	field  string
	typ    qdrant.FieldType
	schema qdrant.PayloadSchemaType
	params *qdrant.PayloadIndexParams
}

// indexes lists every payload index: tenant first, as the tenant key, then
// each field filters use, and created_at as a datetime for operators.
func indexes() []index {
	kw := func(f string) index {
		return index{field: f, typ: qdrant.FieldType_FieldTypeKeyword, schema: qdrant.PayloadSchemaType_Keyword}
	}
	tenant := kw(fTenant)
	tenant.params = qdrant.NewPayloadIndexParamsKeyword(&qdrant.KeywordIndexParams{IsTenant: qdrant.PtrOf(true)})
	return []index{
		tenant,
		kw(fNamespace), kw(fSubject), kw(fDomain), kw(fType), kw(fKind), kw(fLayer), kw(fTags), kw(fSession), kw(fKey),
		{field: fArchived, typ: qdrant.FieldType_FieldTypeBool, schema: qdrant.PayloadSchemaType_Bool},
		{field: fSuperseded, typ: qdrant.FieldType_FieldTypeBool, schema: qdrant.PayloadSchemaType_Bool},
		{field: fQuarantined, typ: qdrant.FieldType_FieldTypeBool, schema: qdrant.PayloadSchemaType_Bool},
		{field: fCreatedAtUS, typ: qdrant.FieldType_FieldTypeInteger, schema: qdrant.PayloadSchemaType_Integer},
		// The time index (store.Filter.Days).
		{field: fTimeDays, typ: qdrant.FieldType_FieldTypeInteger, schema: qdrant.PayloadSchemaType_Integer},
		{field: fCreatedAt, typ: qdrant.FieldType_FieldTypeDatetime, schema: qdrant.PayloadSchemaType_Datetime},
		// The two clocks' other ends, for as_of and known_at (timeview.go).
		{field: fValidFrom, typ: qdrant.FieldType_FieldTypeDatetime, schema: qdrant.PayloadSchemaType_Datetime},
		{field: fValidUntil, typ: qdrant.FieldType_FieldTypeDatetime, schema: qdrant.PayloadSchemaType_Datetime},
		{field: fInvalidAt, typ: qdrant.FieldType_FieldTypeDatetime, schema: qdrant.PayloadSchemaType_Datetime},
	}
}

// createRequest is the collection this store needs. The HNSW graph is built
// per tenant only (m 0, payload_m 16): every query filters by tenant.
func createRequest(name string, dim int) *qdrant.CreateCollection {
	return &qdrant.CreateCollection{
		CollectionName: name,
		VectorsConfig: qdrant.NewVectorsConfigMap(map[string]*qdrant.VectorParams{
			denseVector: {Size: uint64(dim), Distance: qdrant.Distance_Cosine},
			chunkVector: {Size: uint64(dim), Distance: qdrant.Distance_Cosine,
				MultivectorConfig: &qdrant.MultiVectorConfig{Comparator: qdrant.MultiVectorComparator_MaxSim}},
		}),
		SparseVectorsConfig: qdrant.NewSparseVectorsConfig(map[string]*qdrant.SparseVectorParams{
			sparseVector: {Modifier: qdrant.Modifier_Idf.Enum()},
		}),
		HnswConfig: &qdrant.HnswConfigDiff{M: qdrant.PtrOf(uint64(0)), PayloadM: qdrant.PtrOf(uint64(16))},
	}
}

// ensureCollection creates the collection if it is missing and checks it.
func (s *Store) ensureCollection(ctx context.Context) error {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	exists, err := s.client.CollectionExists(cctx, s.collection)
	if err != nil {
		return fmt.Errorf("check qdrant collection %s: %w", s.collection, err)
	}
	if !exists {
		if err := s.client.CreateCollection(cctx, createRequest(s.collection, s.dim)); err != nil {
			// Another process may have created it meanwhile: then check it
			// like any other.
			if again, aerr := s.client.CollectionExists(cctx, s.collection); aerr != nil || !again {
				return fmt.Errorf("create qdrant collection %s: %w", s.collection, err)
			}
		} else {
			s.log.Info("qdrant collection created", "dims", s.dim)
		}
	}
	info, err := s.client.GetCollectionInfo(cctx, s.collection)
	if err != nil {
		return fmt.Errorf("describe qdrant collection %s: %w", s.collection, err)
	}
	if err := checkLayout(s.collection, s.dim, info); err != nil {
		return err
	}
	s.chunks = hasChunkVector(s.dim, info)
	if !s.chunks {
		s.log.Info("qdrant collection has no chunk multivector (created by an older version): long memories are searched by their mean vector")
	}
	return nil
}

// hasChunkVector reports whether info has the chunk multivector this
// store writes: dim wide, cosine, compared by MAX_SIM.
func hasChunkVector(dim int, info *qdrant.CollectionInfo) bool {
	c, ok := info.GetConfig().GetParams().GetVectorsConfig().GetParamsMap().GetMap()[chunkVector]
	return ok && c.GetSize() == uint64(dim) && c.GetDistance() == qdrant.Distance_Cosine &&
		c.GetMultivectorConfig() != nil && c.GetMultivectorConfig().GetComparator() == qdrant.MultiVectorComparator_MaxSim
}

// checkLayout reports how info differs from what the store needs.
func checkLayout(name string, dim int, info *qdrant.CollectionInfo) error {
	params := info.GetConfig().GetParams()
	named := params.GetVectorsConfig().GetParamsMap().GetMap()
	dense, ok := named[denseVector]
	if !ok {
		return fmt.Errorf("qdrant collection %s has no named vector %q (was it created by something else?): %w",
			name, denseVector, ErrSchema)
	}
	if dense.GetSize() != uint64(dim) {
		return fmt.Errorf("qdrant collection %s holds %d-dim vectors but the embedding model gives %d: "+
			"use another collection prefix or reindex: %w", name, dense.GetSize(), dim, ErrSchema)
	}
	if dense.GetDistance() != qdrant.Distance_Cosine {
		return fmt.Errorf("qdrant collection %s compares vectors by %s, want Cosine: %w", name, dense.GetDistance(), ErrSchema)
	}
	sparse, ok := params.GetSparseVectorsConfig().GetMap()[sparseVector]
	if !ok {
		return fmt.Errorf("qdrant collection %s has no sparse vector %q: %w", name, sparseVector, ErrSchema)
	}
	if sparse.GetModifier() != qdrant.Modifier_Idf {
		return fmt.Errorf("qdrant collection %s: sparse vector %q lacks the idf modifier BM25 needs: %w",
			name, sparseVector, ErrSchema)
	}
	return nil
}

// ensureIndexes creates the payload indexes the collection lacks.
func (s *Store) ensureIndexes(ctx context.Context) error {
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	info, err := s.client.GetCollectionInfo(cctx, s.collection)
	if err != nil {
		return fmt.Errorf("describe qdrant collection %s: %w", s.collection, err)
	}
	have := info.GetPayloadSchema()
	for _, ix := range indexes() {
		if got, ok := have[ix.field]; ok {
			if got.GetDataType() != ix.schema {
				s.log.Warn("qdrant payload index has another type", "field", ix.field,
					"type", got.GetDataType().String(), "want", ix.schema.String())
			}
			continue
		}
		ictx, cancel := s.callCtx(ctx)
		_, err := s.client.CreateFieldIndex(ictx, &qdrant.CreateFieldIndexCollection{
			CollectionName:   s.collection,
			Wait:             qdrant.PtrOf(true),
			FieldName:        ix.field,
			FieldType:        ix.typ.Enum(),
			FieldIndexParams: ix.params,
		})
		cancel()
		if err != nil {
			return fmt.Errorf("create qdrant payload index %s on %s: %w", ix.field, s.collection, err)
		}
	}
	return nil
}
