package consolidate

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/samefact"
	"github.com/recollect-dev/recollect/pkg/store"
)

// neighbours returns the store's nearest memories to m (within its
// subject, its namespace and default), once per memory and epoch: buffer
// dedup and the pair search share one lookup.
func (r *run) neighbours(ctx context.Context, m *memory.Memory) ([]store.Hit, error) {
	if hits, ok := r.near[m.ID]; ok {
		return hits, nil
	}
	f := store.Filter{}
	if m.Namespace != memory.DefaultNamespace {
		f.Namespaces = []string{m.Namespace, memory.DefaultNamespace}
	}
	if m.Subject != "" {
		f.Subjects = []string{m.Subject}
	}
	hits, err := r.c.store.Search(ctx, store.Query{Tenant: r.tenant, Vector: m.Vector, K: r.rules.Neighbours + 1, Filter: f})
	if err != nil {
		return nil, fmt.Errorf("neighbours of %s: %w", m.ID, err)
	}
	if r.near == nil {
		r.near = map[string][]store.Hit{}
	}
	r.near[m.ID] = hits
	return hits, nil
}

// bufferDedup is 003's buffer dedup (step 10), without an LLM and at every
// level: a buffer memory this epoch brought that says the same thing
// (package samefact: no number, date, name, negation or word differing)
// as another active buffer memory of its namespace and subject at cosine
// BufferDedupSim or more is a restatement of it. Nothing is deleted: the
// duplicate is superseded by the memory it restates, which inherits its
// reinforcement (counts summed, importance the higher). The explicit one
// of the two stays, else the fuller (one whose words are all in the
// other folds into it), else the older. Episodes are occurrences, never
// duplicates; updates (the same attribute) are reconcile's.
func (r *run) bufferDedup(ctx context.Context) error {
	if r.rules.BufferDedupSim <= 0 {
		return nil
	}
	var changed []*memory.Memory
	r.each(func(m *memory.Memory) {
		if len(m.Vector) > 0 && r.changed(m) && dedupable(m) {
			changed = append(changed, m)
		}
	})
	for _, m := range changed {
		if !active(m) || !r.mutable(m) {
			continue
		}
		hits, err := r.neighbours(ctx, m)
		if err != nil {
			return err
		}
		for _, h := range hits {
			o := r.mems[h.Memory.ID]
			if o == nil || o.ID == m.ID || h.Score < r.rules.BufferDedupSim || !dedupable(o) || !active(o) || !r.mutable(o) ||
				o.Namespace != m.Namespace || o.Subject != m.Subject || m.Quarantined() != o.Quarantined() {
				continue
			}
			keep, dup := o, m
			if newerFirst(o, m) < 0 {
				keep, dup = m, o // o is the newer
			}
			if dup.Explicit() && !keep.Explicit() {
				keep, dup = dup, keep
			}
			switch {
			case samefact.Compare(*keep, *dup).Folds(): // dup says nothing keep does not
			case samefact.Compare(*dup, *keep).Folds() && (dup.Explicit() || !keep.Explicit()):
				keep, dup = dup, keep // keep's words are all in dup: the fuller one stays
			default:
				continue
			}
			r.supersede(dup, keep.ID, PhaseDedup, fmt.Sprintf("restates %s in the buffer (cosine %.2f)", keep.ID, h.Score), DecidedByRule, "")
			r.inherit(keep, dup)
			r.stats.Deduplicated++
			break
		}
	}
	return nil
}

// dedupable is a buffer memory buffer dedup may fold: not an episode nor
// a session note.
func dedupable(m *memory.Memory) bool {
	return m.Layer == memory.LayerBuffer && m.Kind != memory.KindEpisodic && m.Type != memory.TypeEpisode && !sessionNote(m)
}

// coreOverlap is 003's core overlap scan (step 5) for the memories that
// entered core in this epoch (each is scanned once: 003 keeps the flagged
// pairs to avoid re-flagging): another active core memory of its subject
// at cosine CoreOverlapSim or more is an overlap. It is flagged in the
// audit log; with an LLM the pair is also queued for the next epoch's
// merge call, whose text must pass the sandbox's merge rules (every
// detail of both kept, the highest layer), or for reconcile when the two
// state the same attribute.
func (r *run) coreOverlap(ctx context.Context) error {
	if r.rules.CoreOverlapSim <= 0 {
		return nil
	}
	var entered []*memory.Memory
	r.each(func(m *memory.Memory) {
		if b, ok := r.before[m.ID]; ok && active(m) && m.Layer == memory.LayerCore && b.Layer != memory.LayerCore {
			entered = append(entered, m)
		}
	})
	for _, m := range entered {
		if len(m.Vector) == 0 {
			stored, err := r.c.store.Get(ctx, r.tenant, m.ID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("read the vector of %s: %w", m.ID, err)
			}
			m.Vector = stored.Vector
		}
		if len(m.Vector) == 0 {
			continue
		}
		hits, err := r.neighbours(ctx, m)
		if err != nil {
			return err
		}
		for _, h := range hits {
			o := r.mems[h.Memory.ID]
			if o == nil || o.ID == m.ID || h.Score < r.rules.CoreOverlapSim || !active(o) || o.Layer != memory.LayerCore || o.Subject != m.Subject {
				continue
			}
			newer, older := m, o
			if newerFirst(newer, older) > 0 {
				newer, older = older, newer
			}
			ids := []string{older.ID, newer.ID}
			r.record(Op{Phase: PhaseOverlap, Op: "flag", MemoryIDs: ids, Applied: true, Decider: DecidedByRule,
				Reason: fmt.Sprintf("core memories overlap (cosine %.2f ≥ %.2f)", h.Score, r.rules.CoreOverlapSim)})
			r.stats.Overlaps++
			if r.c.level() != llm.LevelOff {
				kind := pairMerge
				if sameAttribute(newer, older) {
					kind = pairReconcile
				}
				r.queueOut = append(r.queueOut, queued{Kind: kind, Newer: newer.ID, Older: older.ID, Sim: h.Score, Since: r.seq})
			}
		}
	}
	return nil
}
