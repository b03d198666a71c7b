package consolidate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

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
// duplicates.
//
// The buffer is compared group by group (namespace and subject) in
// memory, not through the store's search: a search filters every row of
// the tenant, a group holds a few buffer memories, whose vectors are read
// once each.
func (r *run) bufferDedup(ctx context.Context) error {
	if r.rules.BufferDedupSim <= 0 {
		return nil
	}
	groups := map[[2]string][]*memory.Memory{}
	hasChange := map[[2]string]bool{}
	r.each(func(m *memory.Memory) {
		if !active(m) || !dedupable(m) {
			return
		}
		k := [2]string{m.Namespace, m.Subject}
		groups[k] = append(groups[k], m)
		if len(m.Vector) > 0 && r.changed(m) {
			hasChange[k] = true
		}
	})
	vecs := map[string][]float32{}
	vector := func(m *memory.Memory) ([]float32, error) {
		if len(m.Vector) > 0 {
			return m.Vector, nil
		}
		if v, ok := vecs[m.ID]; ok {
			return v, nil
		}
		stored, err := r.c.store.Get(ctx, r.tenant, m.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("read the vector of %s: %w", m.ID, err)
		}
		vecs[m.ID] = stored.Vector
		return stored.Vector, nil
	}
	keys := make([][2]string, 0, len(hasChange))
	for k := range hasChange {
		if len(groups[k]) > 1 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		g := groups[k]
		for _, m := range g {
			if len(m.Vector) == 0 || !r.changed(m) || !active(m) || !r.mutable(m) {
				continue
			}
			for _, o := range g {
				if o == m || !active(o) || !r.mutable(o) || m.Quarantined() != o.Quarantined() {
					continue
				}
				ov, err := vector(o)
				if err != nil {
					return err
				}
				sim := cosine(m.Vector, ov)
				if sim < r.rules.BufferDedupSim {
					continue
				}
				if r.fold(m, o, sim) {
					break
				}
			}
		}
	}
	return nil
}

// fold supersedes whichever of m and o restates the other, if one does.
func (r *run) fold(m, o *memory.Memory, sim float64) bool {
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
		return false
	}
	r.supersede(dup, keep.ID, PhaseDedup, fmt.Sprintf("restates %s in the buffer (cosine %.2f)", keep.ID, sim), DecidedByRule, "")
	r.inherit(keep, dup)
	r.stats.Deduplicated++
	return true
}

// cosine of two vectors (0 when either is empty or their widths differ).
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
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
