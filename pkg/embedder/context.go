package embedder

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// contextWindow bounds how far apart in time two messages of a session may
// be and still be each other's context: the search for a message's
// neighbours reads this much of its session either side.
const contextWindow = 24 * time.Hour

// lockSession serialises the transcript memories of one session within
// the process, so that a message and its neighbours are never linked
// from stale reads. Taken before any memory id's lock.
func (e *Embedder) lockSession(m *memory.Memory) func() {
	mu := &e.sessMu[e.stripe(m.Tenant, m.Namespace+"\x00"+m.Session)%len(e.sessMu)]
	mu.Lock()
	return mu.Unlock
}

// neighbours finds the transcript memories said just before and just after
// m in its session (within contextWindow), whatever order they were
// stored in: turns of a session are handled concurrently, by any replica.
func (e *Embedder) neighbours(ctx context.Context, m *memory.Memory) (prev, next *memory.Memory, err error) {
	at := m.ValidFrom
	f := store.Filter{Namespaces: []string{m.Namespace}, Sessions: []string{m.Session}, Tags: []string{memory.TranscriptTag},
		IncludeArchived: true, IncludeQuarantined: true,
		CreatedAfter: at.Add(-contextWindow), CreatedBefore: at.Add(contextWindow)}
	scroll := e.store.Scroll
	if ms, ok := e.store.(store.MetaScroller); ok {
		scroll = ms.ScrollMeta
	}
	err = scroll(ctx, m.Tenant, f, func(o memory.Memory) error {
		if o.ID == m.ID {
			return nil
		}
		switch t := o.ValidFrom; {
		case t.Before(at) && (prev == nil || t.After(prev.ValidFrom)):
			prev = &o
		case t.After(at) && (next == nil || t.Before(next.ValidFrom)):
			next = &o
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the session %s around memory %s: %w", m.Session, m.ID, err)
	}
	return prev, next, nil
}

// linkContext gives a new transcript memory the message before it as
// evidence (unless its extractor knew it: messages of one compaction), and
// returns the message after it, whose evidence is then m (see
// relinkNext). The caller holds m's session lock.
func (e *Embedder) linkContext(ctx context.Context, m *memory.Memory) (*memory.Memory, error) {
	if m.Session == "" || m.ValidFrom.IsZero() {
		return nil, nil
	}
	prev, next, err := e.neighbours(ctx, m)
	if err != nil {
		return nil, err
	}
	if prev != nil && m.Evidence == "" {
		m.Evidence = memory.TranscriptContext(prev.Content)
	}
	return next, nil
}

// relinkNext makes m the evidence of the message said after it, when that
// was stored first (or linked to an earlier message). The caller holds
// the session lock; next's id lock is taken here.
func (e *Embedder) relinkNext(ctx context.Context, m memory.Memory, next *memory.Memory) error {
	if next == nil {
		return nil
	}
	want := memory.TranscriptContext(m.Content)
	if next.Evidence == want {
		return nil
	}
	unlock := e.lockID(next.Tenant, next.ID)
	defer unlock()
	_, err := store.Update(ctx, e.store, next.Tenant, next.ID, false, func(cur *memory.Memory) (bool, error) {
		if cur.Evidence == want {
			return false, nil
		}
		cur.Evidence = want
		cur.Vector, cur.ChunkVectors = nil, nil
		return true, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("link memory %s to the message before it: %w", next.ID, err)
	}
	return nil
}
