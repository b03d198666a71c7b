package local

import (
	"context"
	"fmt"
	"hash/maphash"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// A memory's revision is a hash of its stored record, the memory without
// its vectors, as encoded (store.ConditionalWriter): any write that
// changes a field changes it, without a counter to keep, persist or carry
// through compaction. The seed is the process's, so a revision read
// before a restart matches nothing after it (a conflict: read again). A
// memory changed and changed back has its old revision again, which is
// harmless: it is as it was read. A write that changes only the vectors
// (a re-embedding) leaves it.
var revSeed = maphash.MakeSeed()

var (
	_ store.ConditionalWriter = (*Store)(nil)
	_ store.RevisionScroller  = (*Store)(nil)
)

// GetRevision is Get with the memory's revision (store.ConditionalWriter).
func (s *Store) GetRevision(ctx context.Context, tenant, id string) (memory.Memory, uint64, error) {
	if err := s.usable(ctx); err != nil {
		return memory.Memory{}, 0, err
	}
	p := s.partition(tenant)
	if p == nil {
		return memory.Memory{}, 0, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	if !s.rlock(p) {
		return memory.Memory{}, 0, store.ErrClosed
	}
	defer p.mu.RUnlock()
	i, ok := p.row(id)
	if !ok {
		return memory.Memory{}, 0, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	m, err := p.memoryAt(i)
	if err != nil {
		return memory.Memory{}, 0, fmt.Errorf("get %s in tenant %s: %w", id, tenant, err)
	}
	return m, p.revision(i), nil
}

// revision of row i, never 0 (0 asks for an unconditional write). The
// caller holds p.mu.
func (p *partition) revision(i int) uint64 {
	return maphash.Bytes(revSeed, p.record(i)) | 1
}

// checkRevisions refuses a batch holding a memory whose revision in revs
// (nil: none) is not its stored one, or which is no longer stored. The
// caller holds writeMu, so no row changes before the batch is written.
func (s *Store) checkRevisions(batch []memory.Memory, revs []uint64) error {
	if revs == nil {
		return nil
	}
	var refused []string
	tenant := ""
	for i := range batch {
		if revs[i] == 0 {
			continue
		}
		m := &batch[i]
		if !s.holdsAt(m.Tenant, m.ID, revs[i]) {
			refused = append(refused, m.ID)
			tenant = m.Tenant
		}
	}
	if len(refused) > 0 {
		return &store.ConflictError{Tenant: tenant, IDs: refused}
	}
	return nil
}

// holdsAt reports whether the tenant holds the memory at revision rev.
func (s *Store) holdsAt(tenant, id string, rev uint64) bool {
	p := s.partition(tenant)
	if p == nil {
		return false
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	row, ok := p.row(id)
	return ok && p.revision(row) == rev
}
