package local

import (
	"context"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// UpdatePayload rewrites the tenant's memories with these ids but for their
// vectors, which are taken from the store under the write lock, so no
// concurrent Upsert's vector is overwritten with an older one. See
// store.Store.
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
	s.writeMu.Lock()
	if err := s.writable(); err != nil {
		s.writeMu.Unlock()
		return err
	}
	batch, err := s.withStoredVectors(tenant, mems)
	if err != nil || len(batch) == 0 {
		s.writeMu.Unlock()
		return err
	}
	what := "update payload of tenant " + tenant
	enc, err := encodeBatch(batch, what)
	if err != nil {
		s.writeMu.Unlock()
		return err
	}
	return s.commit(batch, enc, what)
}

// withStoredVectors returns copies of the memories the tenant holds, each
// with its stored vector, refusing any whose indexed text changed. The
// caller holds writeMu, so the partition's rows cannot move.
func (s *Store) withStoredVectors(tenant string, mems []memory.Memory) ([]memory.Memory, error) {
	p := s.partition(tenant)
	if p == nil {
		return nil, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	batch := make([]memory.Memory, 0, len(mems))
	for i := range mems {
		row, ok := p.ids[mems[i].ID]
		if !ok {
			continue
		}
		if !lexical.SameText(p.recs[row], mems[i]) {
			return nil, store.TextChanged(i, mems[i].ID)
		}
		m := mems[i]
		m.Vector = nil
		m = cloneMemory(m)
		m.Vector = p.vector(row)
		stripMonotonic(&m)
		batch = append(batch, m)
	}
	return batch, nil
}
