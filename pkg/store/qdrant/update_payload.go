package qdrant

import (
	"context"
	"fmt"

	"github.com/qdrant/go-client/qdrant"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// UpdatePayload overwrites the payload of the tenant's points with these ids
// in one batch request with wait=true, leaving their dense and sparse vectors
// alone. The stored texts are read first so that a text change is refused
// before anything is written (a concurrent Upsert between that read and the
// write can still change a text, which Upsert re-indexes anyway). Each
// operation selects its point by tenant and id, so ids the tenant does not
// hold match nothing and are skipped. Overwrite rather than set-payload:
// set merges keys, so a field that became empty (tags cleared, archived
// lifted, invalid_at removed) would keep its old value.
func (s *Store) UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(mems) == 0 {
		return nil
	}
	if err := store.CheckPayloadBatch(tenant, mems); err != nil {
		return err
	}
	for i := range mems {
		if err := checkID(mems[i].ID); err != nil {
			return fmt.Errorf("update payload of memory %d: %w", i, err)
		}
	}
	stored, err := s.storedTexts(ctx, tenant, mems)
	if err != nil {
		return err
	}
	ops := make([]*qdrant.PointsUpdateOperation, 0, len(mems))
	for i, m := range mems {
		old, ok := stored[m.ID]
		if !ok {
			continue
		}
		if !lexical.SameText(old, m) {
			return store.TextChanged(i, m.ID)
		}
		sel := tenantFilter(tenant)
		sel.Must = append(sel.Must, qdrant.NewHasID(qdrant.NewIDUUID(m.ID)))
		ops = append(ops, qdrant.NewPointsUpdateOverwritePayload(&qdrant.PointsUpdateOperation_OverwritePayload{
			Payload:        toPayload(m),
			PointsSelector: qdrant.NewPointsSelectorFilter(sel),
		}))
	}
	if len(ops) == 0 {
		return nil
	}
	cctx, cancel := s.callCtx(ctx)
	defer cancel()
	if _, err := s.client.UpdateBatch(cctx, &qdrant.UpdateBatchPoints{
		CollectionName: s.collection,
		Wait:           qdrant.PtrOf(true),
		Operations:     ops,
	}); err != nil {
		return s.wrap(err, "update payload of %d memories of tenant %s in %s", len(ops), tenant, s.collection)
	}
	return nil
}

// storedTexts reads the tenant's points with the memories' ids, payload
// only, keyed by id.
func (s *Store) storedTexts(ctx context.Context, tenant string, mems []memory.Memory) (map[string]memory.Memory, error) {
	ids := make([]string, len(mems))
	for i := range mems {
		ids[i] = mems[i].ID
	}
	pts, err := s.points(ctx, ids, true)
	if err != nil {
		return nil, fmt.Errorf("read %d memories of tenant %s: %w", len(ids), tenant, err)
	}
	out := make(map[string]memory.Memory, len(pts))
	for _, p := range pts {
		m, err := decodePoint(p.GetId(), p.GetPayload(), nil)
		if err != nil {
			return nil, fmt.Errorf("read memories of tenant %s: %w", tenant, err)
		}
		if m.Tenant == tenant {
			out[m.ID] = m
		}
	}
	return out, nil
}
