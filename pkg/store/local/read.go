package local

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// scrollPage is how many memories Scroll copies per read lock, so that fn
// runs unlocked (it may call the store) and writers are not held up long.
const scrollPage = 256

// Get returns the tenant's memory with that id, or store.ErrNotFound.
func (s *Store) Get(ctx context.Context, tenant, id string) (memory.Memory, error) {
	if err := s.usable(ctx); err != nil {
		return memory.Memory{}, err
	}
	p := s.partition(tenant)
	if p == nil {
		return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	if !s.rlock(p) {
		return memory.Memory{}, store.ErrClosed
	}
	defer p.mu.RUnlock()
	i, ok := p.row(id)
	if !ok {
		return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	m, err := p.memoryAt(i)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, err)
	}
	return m, nil
}

// Scroll calls fn for each matching memory in id order. It sees a memory
// deleted or changed after the scroll began as it is when its page is read.
func (s *Store) Scroll(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	return s.scroll(ctx, tenant, f, true, "", fn)
}

// ScrollMeta is Scroll without the vectors (store.MetaScroller).
func (s *Store) ScrollMeta(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	return s.scroll(ctx, tenant, f, false, "", fn)
}

// ScrollMetaAfter is ScrollMeta from the first id after after
// (store.PageScroller): the ids before it are skipped before any memory
// is decoded.
func (s *Store) ScrollMetaAfter(ctx context.Context, tenant string, f store.Filter, after string, fn func(memory.Memory) error) error {
	return s.scroll(ctx, tenant, f, false, after, fn)
}

// ScrollRevisions is ScrollMeta with each memory's revision
// (store.RevisionScroller).
func (s *Store) ScrollRevisions(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory, uint64) error) error {
	return s.scrollRev(ctx, tenant, f, false, "", true, fn)
}

// scroll is Scroll, copying the vectors only withVectors, from the first
// id after after ("" = the first).
func (s *Store) scroll(ctx context.Context, tenant string, f store.Filter, withVectors bool, after string, fn func(memory.Memory) error) error {
	return s.scrollRev(ctx, tenant, f, withVectors, after, false, func(m memory.Memory, _ uint64) error { return fn(m) })
}

// scrollRev is scroll, passing each memory's revision when revisions (0
// otherwise).
func (s *Store) scrollRev(ctx context.Context, tenant string, f store.Filter, withVectors bool, after string, revisions bool, fn func(memory.Memory, uint64) error) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	p := s.partition(tenant)
	if p == nil {
		return nil
	}
	p.mu.RLock()
	rf, ok := p.compileFilter(&f)
	var ids []idRow
	// The ids back to back, one allocation rather than one each. The
	// strings view it; nothing writes over what they view (an append that
	// grows it leaves them on the old array).
	var idBuf []byte
	for i := range p.recs {
		if ok && p.match(&rf, i) {
			at := len(idBuf)
			idBuf = append(idBuf, recID(p.record(i))...)
			ids = append(ids, idRow{viewString(idBuf[at:]), i})
		}
	}
	p.mu.RUnlock()
	slices.SortFunc(ids, func(a, b idRow) int { return strings.Compare(a.id, b.id) })
	if after != "" {
		ids = ids[sort.Search(len(ids), func(i int) bool { return ids[i].id > after }):]
	}

	if withVectors && len(ids) >= chunkRows {
		// A big scroll with vectors (a topics rebuild, an export) reads
		// the tenant's mapped vectors all over: hand their pages back to
		// the page cache once it is done (vecfile.go).
		defer func() {
			if s.rlock(p) {
				p.vecs.dropPages()
				p.mu.RUnlock()
			}
		}()
	}
	page := make([]memory.Memory, 0, scrollPage)
	revs := make([]uint64, 0, scrollPage)
	for len(ids) > 0 {
		if err := s.usable(ctx); err != nil {
			return err
		}
		n := min(scrollPage, len(ids))
		page, revs = page[:0], revs[:0]
		if !s.rlock(p) {
			return store.ErrClosed
		}
		// Compiled again: values the page's memories now hold may be new.
		rf, ok := p.compileFilter(&f)
		var err error
		for _, ir := range ids[:n] {
			if i, found := p.rowOf(ir); ok && found && p.match(&rf, i) {
				var m memory.Memory
				if withVectors {
					m, err = p.memoryAt(i)
				} else {
					m, err = p.decode(i)
				}
				if err != nil {
					break
				}
				var rev uint64
				if revisions {
					rev = p.revision(i)
				}
				page, revs = append(page, m), append(revs, rev)
			}
		}
		p.mu.RUnlock()
		if err != nil {
			return fmt.Errorf("scroll tenant %s: %w", tenant, err)
		}
		ids = ids[n:]
		for k, m := range page {
			if err := fn(m, revs[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// idRow is a memory's id and the row it had when a scroll listed it.
type idRow struct {
	id  string
	row int
}

// rowOf returns the memory's row now: the one it had unless a delete
// moved it (rows move only then), else the one its id maps to. The caller
// holds p.mu.
func (p *partition) rowOf(ir idRow) (int, bool) {
	if ir.row < len(p.recs) && p.rowID(ir.row) == ir.id {
		return ir.row, true
	}
	i, ok := p.row(ir.id)
	return i, ok
}

// Count returns how many of the tenant's memories match f.
func (s *Store) Count(ctx context.Context, tenant string, f store.Filter) (int, error) {
	if err := s.usable(ctx); err != nil {
		return 0, err
	}
	p := s.partition(tenant)
	if p == nil {
		return 0, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	rf, ok := p.compileFilter(&f)
	if !ok {
		return 0, nil
	}
	n := 0
	for i := range p.recs {
		if p.match(&rf, i) {
			n++
		}
	}
	return n, nil
}

// Tenants lists, sorted, the tenants that hold at least one memory.
func (s *Store) Tenants(ctx context.Context) ([]string, error) {
	if err := s.usable(ctx); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.parts))
	for t, p := range s.parts {
		p.mu.RLock()
		n := len(p.recs)
		p.mu.RUnlock()
		if n > 0 {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}
