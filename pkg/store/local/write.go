package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Upsert validates the whole batch, appends it to the log as one frame,
// applies it and returns once the frame is durable. One bad memory rejects
// the batch with nothing written. A later memory with the same id wins.
func (s *Store) Upsert(ctx context.Context, mems []memory.Memory) error {
	return s.upsert(ctx, mems, nil)
}

// UpsertIf is Upsert writing mems[i] only if its stored revision is still
// revs[i] (store.ConditionalWriter).
func (s *Store) UpsertIf(ctx context.Context, mems []memory.Memory, revs []uint64) error {
	if len(revs) != len(mems) {
		return fmt.Errorf("upsert if: %d revisions for %d memories: %w", len(revs), len(mems), memory.ErrInvalid)
	}
	return s.upsert(ctx, mems, revs)
}

// upsert is Upsert, conditional on revs when not nil.
func (s *Store) upsert(ctx context.Context, mems []memory.Memory, revs []uint64) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if len(mems) == 0 {
		return nil
	}
	batch := make([]memory.Memory, len(mems))
	for i := range mems {
		if err := mems[i].Validate(); err != nil {
			return fmt.Errorf("upsert memory %d (%s): %w", i, mems[i].ID, err)
		}
		vec, err := normalized(mems[i].Vector)
		if err != nil {
			return fmt.Errorf("upsert memory %d (%s): %w", i, mems[i].ID, err)
		}
		chunks, err := store.NormalizedChunks(vec, mems[i].ChunkVectors)
		if err != nil {
			return fmt.Errorf("upsert memory %d (%s): %w", i, mems[i].ID, err)
		}
		m := mems[i]
		m.Vector, m.ChunkVectors = nil, nil
		m = cloneMemory(m)
		m.Vector, m.ChunkVectors = vec, chunks
		stripMonotonic(&m)
		batch[i] = m
	}
	enc, err := encodeBatch(batch, "upsert")
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	if err := s.writable(); err != nil {
		s.writeMu.Unlock()
		return err
	}
	if err := s.checkDims(batch); err != nil {
		s.writeMu.Unlock()
		return fmt.Errorf("upsert: %w", err)
	}
	if err := s.checkRevisions(batch, revs); err != nil {
		s.writeMu.Unlock()
		return fmt.Errorf("upsert: %w", err)
	}
	return s.commit(enc.frame, func() error { return s.apply(batch, enc.sizes, enc.lex) }, "upsert")
}

// encoded is a batch's sealed log frame with what applying it needs.
type encoded struct {
	frame []byte
	sizes []int
	lex   []lexical.SparseVector
}

// encodeBatch encodes a validated batch as one sealed frame.
func encodeBatch(batch []memory.Memory, what string) (encoded, error) {
	frame, sizes, err := encodeUpsert(newFrame(len(batch)*(512+4*len(batch[0].Vector))), batch)
	if err != nil {
		return encoded{}, fmt.Errorf("%s: %w", what, err)
	}
	if n := len(frame) - frameHeaderLen; n > maxFrameLen {
		return encoded{}, fmt.Errorf("%s batch of %d memories encodes to %d bytes, over the %d limit: %w",
			what, len(batch), n, maxFrameLen, memory.ErrInvalid)
	}
	return encoded{frame: sealFrame(frame), sizes: sizes, lex: memoryVectors(batch)}, nil
}

// commit logs a sealed frame, applies what it holds, releases writeMu
// (which the caller holds) and returns once the frame is durable. A frame
// logged but not applied in full stops writes: memory no longer matches
// the log, which a restart replays (or refuses to open).
func (s *Store) commit(frame []byte, apply func() error, what string) error {
	w := s.wal
	end, err := w.append(frame)
	if err != nil {
		if !errors.Is(err, errNoSpace) {
			s.failed = err
		}
		s.writeMu.Unlock()
		return fmt.Errorf("%s: %w", what, err)
	}
	s.appended.Add(uint64(len(frame)))
	if err := apply(); err != nil {
		s.failed = fmt.Errorf("%s logged but not applied: %w", what, err)
		s.writeMu.Unlock()
		return s.failed
	}
	s.maybeCompact()
	s.writeMu.Unlock()
	if err := w.sync(end); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// apply puts a logged batch (with its lexical vectors) in memory, holding
// each partition's lock across a run of memories of one tenant, so that
// readers see such a batch whole, and returns the first memory it could
// not store. The caller holds writeMu.
func (s *Store) apply(batch []memory.Memory, sizes []int, lex []lexical.SparseVector) error {
	var first error
	var p *partition
	tenant := ""
	for i, m := range batch {
		if p == nil || m.Tenant != tenant {
			if p != nil {
				s.maybeIndex(tenant, p)
				p.mu.Unlock() // before partitionForWrite takes s.mu
			}
			p, tenant = s.partitionForWrite(m.Tenant), m.Tenant
			p.mu.Lock()
		}
		delta, err := p.upsert(m, sizes[i], lex[i])
		if err != nil && first == nil {
			first = fmt.Errorf("store memory %s of tenant %s: %w", m.ID, m.Tenant, err)
		}
		s.liveBytes += int64(delta)
	}
	if p != nil {
		s.maybeIndex(tenant, p)
		p.mu.Unlock()
	}
	return first
}

// checkDims rejects a vector whose width differs from its tenant's, taking
// earlier memories of the same batch into account. The caller holds writeMu.
func (s *Store) checkDims(batch []memory.Memory) error {
	settled := make(map[string]int)
	for _, m := range batch {
		dim, ok := settled[m.Tenant]
		if !ok {
			if p := s.partition(m.Tenant); p != nil {
				dim = p.dim
			}
		}
		if err := checkDim(m.Tenant, m.ID, dim, len(m.Vector)); err != nil {
			return err
		}
		if dim == 0 {
			dim = len(m.Vector)
		}
		settled[m.Tenant] = dim
	}
	return nil
}

// Delete removes the ids from the tenant; ids it does not hold are ignored.
func (s *Store) Delete(ctx context.Context, tenant string, ids ...string) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	s.writeMu.Lock()
	if err := s.writable(); err != nil {
		s.writeMu.Unlock()
		return err
	}
	w := s.wal
	var present []string
	p := s.partition(tenant)
	if p != nil {
		for _, id := range ids {
			if _, ok := p.row(id); ok {
				present = append(present, id)
			}
		}
	}
	// Even with nothing to delete, wait for what is already logged: an id
	// may be missing because a delete not yet durable removed it.
	end := w.size.Load()
	if len(present) > 0 {
		var err error
		frame := sealFrame(encodeDelete(newFrame(64*len(present)), tenant, present))
		if end, err = w.append(frame); err != nil {
			if !errors.Is(err, errNoSpace) {
				s.failed = err
			}
			s.writeMu.Unlock()
			return fmt.Errorf("delete from tenant %s: %w", tenant, err)
		}
		s.appended.Add(uint64(len(frame)))
		var first error
		p.mu.Lock()
		for _, id := range present {
			delta, err := p.remove(id)
			if err != nil && first == nil {
				first = fmt.Errorf("remove memory %s: %w", id, err)
			}
			s.liveBytes += int64(delta)
		}
		p.mu.Unlock()
		if first != nil {
			// Memory no longer matches the log (see commit).
			s.failed = fmt.Errorf("delete from tenant %s logged but not applied: %w", tenant, first)
			s.writeMu.Unlock()
			return s.failed
		}
		s.maybeCompact()
	}
	s.writeMu.Unlock()
	if err := w.sync(end); err != nil {
		return fmt.Errorf("delete from tenant %s: %w", tenant, err)
	}
	return nil
}

// usable is checked on entry by every call.
func (s *Store) usable(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// writable is checked under writeMu, where Close cannot slip in between.
func (s *Store) writable() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if s.failed != nil {
		return fmt.Errorf("store %s stopped taking writes: %w", s.dir, s.failed)
	}
	return nil
}

// stripMonotonic drops monotonic clock readings, which the log cannot keep,
// so that a memory reads the same before and after a restart.
func stripMonotonic(m *memory.Memory) {
	m.CreatedAt = m.CreatedAt.Round(0)
	m.ModifiedAt = m.ModifiedAt.Round(0)
	m.LastAccessed = m.LastAccessed.Round(0)
	m.ValidFrom = m.ValidFrom.Round(0)
	if m.InvalidAt != nil {
		*m.InvalidAt = m.InvalidAt.Round(0)
	}
	if m.ValidUntil != nil {
		*m.ValidUntil = m.ValidUntil.Round(0)
	}
}
