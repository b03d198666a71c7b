package local

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// UpdatePayload rewrites the tenant's memories with these ids but for their
// vectors, which stay as stored, so no concurrent Upsert's vector is
// overwritten with an older one. The log gets payload records without
// vectors, and nothing is re-indexed: the text is the same by contract
// (checked under the write lock) and the vectors do not change. See
// store.Store.
func (s *Store) UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error {
	return s.updatePayload(ctx, tenant, mems, nil)
}

// UpdatePayloadIf is UpdatePayload writing mems[i] only if its stored
// revision is still revs[i] (store.ConditionalWriter).
func (s *Store) UpdatePayloadIf(ctx context.Context, tenant string, mems []memory.Memory, revs []uint64) error {
	if len(revs) != len(mems) {
		return fmt.Errorf("update payload if: %d revisions for %d memories: %w", len(revs), len(mems), memory.ErrInvalid)
	}
	return s.updatePayload(ctx, tenant, mems, revs)
}

// updatePayload is UpdatePayload, conditional on revs when not nil.
func (s *Store) updatePayload(ctx context.Context, tenant string, mems []memory.Memory, revs []uint64) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(mems) == 0 {
		return nil
	}
	if err := store.CheckPayloadBatch(tenant, mems); err != nil {
		return err
	}
	batch := make([]memory.Memory, len(mems))
	for i := range mems {
		m := mems[i]
		m.Vector, m.ChunkVectors = nil, nil
		m = cloneMemory(m)
		stripMonotonic(&m)
		batch[i] = m
	}
	what := "update payload of tenant " + tenant
	// Encoded before the write lock is taken, as if every id were held;
	// encoded again under it in the rare case that some are not.
	frame, sizes, err := encodePayloadBatch(batch, what)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	if err := s.writable(); err != nil {
		s.writeMu.Unlock()
		return err
	}
	if err := s.checkRevisions(batch, revs); err != nil {
		s.writeMu.Unlock()
		return fmt.Errorf("%s: %w", what, err)
	}
	p, rows, err := s.heldRows(tenant, batch)
	if err != nil || len(rows) == 0 {
		s.writeMu.Unlock()
		return err
	}
	if len(rows) < len(batch) {
		kept := make([]memory.Memory, 0, len(rows))
		for _, r := range rows {
			kept = append(kept, batch[r.i])
		}
		batch = kept
		if frame, sizes, err = encodePayloadBatch(batch, what); err != nil {
			s.writeMu.Unlock()
			return err
		}
		for k := range rows {
			rows[k].i = k
		}
	}
	return s.commit(frame, func() error {
		var first error
		p.mu.Lock()
		for _, r := range rows {
			delta, err := p.setPayload(r.row, batch[r.i], sizes[r.i])
			if err != nil && first == nil {
				first = fmt.Errorf("store memory %s: %w", batch[r.i].ID, err)
			}
			s.liveBytes += int64(delta)
		}
		p.mu.Unlock()
		return first
	}, what)
}

// heldRow pairs a memory of a payload batch (index i) with its row.
type heldRow struct{ i, row int }

// heldRows returns the tenant's partition and the rows of the batch's
// memories it holds, in batch order, refusing the batch if any of those
// is indexed by another text than the stored one. The caller holds
// writeMu, so the rows cannot move until it is released.
func (s *Store) heldRows(tenant string, batch []memory.Memory) (*partition, []heldRow, error) {
	p := s.partition(tenant)
	if p == nil {
		return nil, nil, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	rows := make([]heldRow, 0, len(batch))
	for i := range batch {
		row, ok := p.row(batch[i].ID)
		if !ok {
			continue
		}
		if !recSameText(p.record(row), &batch[i]) {
			return nil, nil, store.TextChanged(i, batch[i].ID)
		}
		rows = append(rows, heldRow{i: i, row: row})
	}
	return p, rows, nil
}

// encodePayloadBatch encodes a payload batch as one sealed frame.
func encodePayloadBatch(batch []memory.Memory, what string) ([]byte, []int, error) {
	frame, sizes, err := encodePayload(newFrame(len(batch)*512), batch)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if n := len(frame) - frameHeaderLen; n > maxFrameLen {
		return nil, nil, fmt.Errorf("%s batch of %d memories encodes to %d bytes, over the %d limit: %w",
			what, len(batch), n, maxFrameLen, memory.ErrInvalid)
	}
	return sealFrame(frame), sizes, nil
}
