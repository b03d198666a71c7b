package remote

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// memStore is a minimal in-memory store.Store that keeps vectors exactly as
// given (the local engine normalises them), counts calls per operation and
// can be told to fail or block.
type memStore struct {
	mu     sync.Mutex
	data   map[string]map[string]memory.Memory
	calls  map[string]int
	closed bool
	// hook, when set, runs at the start of every call; a non-nil error is
	// returned by the call.
	hook func(ctx context.Context, op string) error
}

func newMemStore() *memStore {
	return &memStore{data: map[string]map[string]memory.Memory{}, calls: map[string]int{}}
}

func (s *memStore) enter(ctx context.Context, op string) error {
	s.mu.Lock()
	s.calls[op]++
	closed, hook := s.closed, s.hook
	s.mu.Unlock()
	if closed {
		return store.ErrClosed
	}
	if hook != nil {
		if err := hook(ctx, op); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (s *memStore) setHook(h func(ctx context.Context, op string) error) {
	s.mu.Lock()
	s.hook = h
	s.mu.Unlock()
}

func (s *memStore) count(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

func (s *memStore) Upsert(ctx context.Context, mems []memory.Memory) error {
	if err := s.enter(ctx, opUpsert); err != nil {
		return err
	}
	for i := range mems {
		if err := mems[i].Validate(); err != nil {
			return fmt.Errorf("upsert memory %d (%s): %w", i, mems[i].ID, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range mems {
		if s.data[m.Tenant] == nil {
			s.data[m.Tenant] = map[string]memory.Memory{}
		}
		m.Vector = slices.Clone(m.Vector)
		s.data[m.Tenant][m.ID] = m
	}
	return nil
}

func (s *memStore) Get(ctx context.Context, tenant, id string) (memory.Memory, error) {
	if err := s.enter(ctx, opGet); err != nil {
		return memory.Memory{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.data[tenant][id]
	if !ok {
		return memory.Memory{}, fmt.Errorf("get %s in tenant %s: %w", id, tenant, store.ErrNotFound)
	}
	return m, nil
}

func (s *memStore) Delete(ctx context.Context, tenant string, ids ...string) error {
	if err := s.enter(ctx, opDelete); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.data[tenant], id)
	}
	return nil
}

func (s *memStore) UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error {
	if err := s.enter(ctx, opPayload); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range mems {
		if m.Tenant != tenant {
			return fmt.Errorf("memory %s belongs to tenant %s: %w", m.ID, m.Tenant, memory.ErrInvalid)
		}
		if old, ok := s.data[tenant][m.ID]; ok && !lexical.SameText(old, m) {
			return fmt.Errorf("memory %s: text changed: %w", m.ID, memory.ErrInvalid)
		}
	}
	for _, m := range mems {
		if old, ok := s.data[tenant][m.ID]; ok {
			m.Vector = old.Vector
			s.data[tenant][m.ID] = m
		}
	}
	return nil
}

func matchesFilter(m memory.Memory, f store.Filter) bool {
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	switch {
	case m.Archived && !f.IncludeArchived, m.InvalidAt != nil && !f.IncludeSuperseded,
		!in(f.Namespaces, m.Namespace), !in(f.Subjects, m.Subject), !in(f.Domains, m.Domain),
		!in(f.Sessions, m.Session), !in(f.Keys, m.Key),
		len(f.Types) > 0 && !slices.Contains(f.Types, m.Type),
		len(f.Kinds) > 0 && !slices.Contains(f.Kinds, m.Kind),
		len(f.Layers) > 0 && !slices.Contains(f.Layers, m.Layer),
		len(f.Tags) > 0 && !slices.ContainsFunc(m.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }),
		!f.CreatedAfter.IsZero() && !m.CreatedAt.After(f.CreatedAfter),
		!f.CreatedBefore.IsZero() && !m.CreatedAt.Before(f.CreatedBefore):
		return false
	}
	return true
}

// sorted returns the tenant's matching memories in id order.
func (s *memStore) sorted(tenant string, f store.Filter) []memory.Memory {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []memory.Memory
	for _, m := range s.data[tenant] {
		if matchesFilter(m, f) {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *memStore) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if err := s.enter(ctx, opSearch); err != nil {
		return nil, err
	}
	if q.K <= 0 {
		return nil, fmt.Errorf("search k %d: %w", q.K, memory.ErrInvalid)
	}
	var hits []store.Hit
	for _, m := range s.sorted(q.Tenant, q.Filter) {
		if len(m.Vector) != len(q.Vector) || len(m.Vector) == 0 {
			continue
		}
		var dot, na, nb float64
		for i := range m.Vector {
			dot += float64(m.Vector[i]) * float64(q.Vector[i])
			na += float64(m.Vector[i]) * float64(m.Vector[i])
			nb += float64(q.Vector[i]) * float64(q.Vector[i])
		}
		hits = append(hits, store.Hit{Memory: m, Score: dot / math.Sqrt(na*nb)})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits[:min(q.K, len(hits))], nil
}

// SearchText is BM25 by brute force, straight from package lexical's model:
// IDF over the tenant's memories with any term, ties in id order.
func (s *memStore) SearchText(ctx context.Context, q store.TextQuery) ([]store.Hit, error) {
	if err := s.enter(ctx, opSearchText); err != nil {
		return nil, err
	}
	if q.K <= 0 {
		return nil, fmt.Errorf("search text k %d: %w", q.K, memory.ErrInvalid)
	}
	qv := lexical.QueryVector(q.Text)
	all := s.sorted(q.Tenant, everything)
	vecs := make([]lexical.SparseVector, len(all))
	df := map[uint32]int{}
	n := 0
	for i, m := range all {
		vecs[i] = lexical.MemoryVector(m)
		if vecs[i].Len() > 0 {
			n++
		}
		for _, t := range vecs[i].Indices {
			df[t]++
		}
	}
	hits := []store.Hit{}
	for i, m := range all {
		if !matchesFilter(m, q.Filter) {
			continue
		}
		var score float64
		for j, t := range vecs[i].Indices {
			if _, ok := slices.BinarySearch(qv.Indices, t); ok {
				score += lexical.IDF(n, df[t]) * float64(vecs[i].Values[j])
			}
		}
		if score > 0 {
			hits = append(hits, store.Hit{Memory: m, Score: score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits[:min(q.K, len(hits))], nil
}

func (s *memStore) Scroll(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	if err := s.enter(ctx, opScroll); err != nil {
		return err
	}
	for _, m := range s.sorted(tenant, f) {
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}

func (s *memStore) Count(ctx context.Context, tenant string, f store.Filter) (int, error) {
	if err := s.enter(ctx, opCount); err != nil {
		return 0, err
	}
	return len(s.sorted(tenant, f)), nil
}

func (s *memStore) Tenants(ctx context.Context) ([]string, error) {
	if err := s.enter(ctx, opTenants); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t, ms := range s.data {
		if len(ms) > 0 {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *memStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	s.closed = true
	return nil
}
