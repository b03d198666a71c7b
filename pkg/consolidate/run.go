package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// run is one epoch over one tenant. Every phase changes working copies of
// the tenant's memories through change, supersede, archive or create; the
// epoch then writes them once (commit). A memory already stamped with the
// epoch's sequence number was written by an earlier try of the same epoch
// (a crash, a redelivery) and is left alone: nothing is applied twice.
type run struct {
	c      *Consolidator
	rules  Rules
	tenant string
	id     string // the request id
	seq    int64  // the epoch's sequence number, stamped on what it changes
	now    time.Time
	// last is the start of the previous epoch (zero before the first):
	// memories created or revalidated after it are this epoch's changes.
	last   time.Time
	starts []time.Time

	mems map[string]*memory.Memory
	// order is every loaded memory by id: phases iterate in a stable
	// order, without a map lookup per memory (eight passes over 100,000).
	order []*memory.Memory
	// transcripts are the tenant's transcript memories: outside the
	// lifecycle, under their own retention.
	transcripts []*memory.Memory
	before      map[string]memory.Memory
	// loaded are the revisions the memories were loaded at, when the
	// store scrolls with revisions and writes conditionally and every
	// revision is known (nil otherwise): the commit then writes on them
	// without reading the tenant again (see commit).
	loaded  map[string]uint64
	created []memory.Memory
	deleted []string
	ops     []Op
	stats   Stats

	// found are the pairs this epoch found; queueIn the tenant's carried
	// queue as loaded, queueOut what the epoch leaves in it.
	found             []pair
	queueIn, queueOut []queued
	// near caches each memory's store neighbours for this epoch.
	near map[string][]store.Hit
}

// Stats counts what an epoch did.
type Stats struct {
	Memories int `json:"memories"`
	// Transcripts counts the transcript memories (not in Memories).
	Transcripts         int `json:"transcripts"`
	TranscriptsArchived int `json:"transcripts_archived,omitempty"`
	Decayed             int `json:"decayed"`
	Promoted            int `json:"promoted"`
	Triaged             int `json:"triaged"`
	Core                int `json:"core"`
	Rejected            int `json:"rejected"`
	Demoted             int `json:"demoted"`
	Superseded          int `json:"superseded"`
	Merged              int `json:"merged"`
	Distilled           int `json:"distilled"`
	Audited             int `json:"audited"`
	Refused             int `json:"refused"`
	Archived            int `json:"archived"`
	Deleted             int `json:"deleted"`
	LLMCalls            int `json:"llm_calls"`
	Queued              int `json:"queued"` // pairs carried to the next epoch
	// Deduplicated counts buffer restatements folded without an LLM;
	// Overlaps the core overlaps flagged.
	Deduplicated int `json:"deduplicated"`
	Overlaps     int `json:"overlaps"`
	// Rebased counts changed memories another writer had also changed
	// since the epoch read them (see rebase).
	Rebased int `json:"rebased,omitempty"`
}

// Op is one operation of an epoch as the audit log records it.
type Op struct {
	Phase     string
	Op        string
	MemoryIDs []string
	Before    []memory.Memory
	After     []memory.Memory
	Applied   bool
	Reason    string
	Decider   string // "rule", "llm", "operator"
	Model     string
}

// Deciders.
const (
	DecidedByRule     = "rule"
	DecidedByLLM      = "llm"
	DecidedByOperator = "operator"
)

func newRun(c *Consolidator, tenant, id string, seq int64, now time.Time, starts []time.Time) *run {
	r := &run{c: c, rules: c.cfg.Rules, tenant: tenant, id: id, seq: seq, now: now, starts: starts,
		mems: map[string]*memory.Memory{}, before: map[string]memory.Memory{}}
	if n := len(starts); n > 0 {
		r.last = starts[n-1]
	}
	return r
}

// load reads every memory of the tenant, archived and superseded ones too.
// Vectors are kept only for this epoch's changes (the ones whose
// neighbours are looked up): a tenant of 100,000 memories stays small. A
// store that can scroll without vectors (store.MetaScroller) is read so,
// and the changed memories' vectors are read afterwards, one by one.
func (r *run) load(ctx context.Context) error {
	all := store.Filter{IncludeArchived: true, IncludeSuperseded: true}
	ms, meta := r.c.store.(store.MetaScroller)
	scroll := r.c.store.Scroll
	if meta {
		scroll = ms.ScrollMeta
	}
	rs, revisions := r.c.store.(store.RevisionScroller)
	if _, conditional := r.c.store.(store.ConditionalWriter); revisions && conditional {
		// Without vectors, as ScrollMeta; with each memory's revision.
		meta, r.loaded = true, map[string]uint64{}
		scroll = func(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
			return rs.ScrollRevisions(ctx, tenant, f, func(m memory.Memory, rev uint64) error {
				if rev == 0 {
					r.loaded = nil // a store that keeps none: read again at commit
				} else if r.loaded != nil {
					r.loaded[m.ID] = rev
				}
				return fn(m)
			})
		}
	}
	var changed []*memory.Memory
	err := scroll(ctx, r.tenant, all, func(m memory.Memory) error {
		if m.Transcript() {
			// What was said is kept as said: no phase of the lifecycle
			// sees it; only its own retention does (transcripts.go).
			m.Vector = nil
			r.mems[m.ID] = &m
			r.transcripts = append(r.transcripts, &m)
			return nil
		}
		if !r.changed(&m) {
			m.Vector = nil
		} else if m.Epoch == 0 {
			changed = append(changed, &m)
		}
		r.mems[m.ID] = &m
		r.order = append(r.order, &m)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read memories of %s: %w", r.tenant, err)
	}
	if meta {
		if err := r.loadVectors(ctx); err != nil {
			return err
		}
	}
	for _, m := range changed {
		r.touch(m) // stamped, so it is compared once, not every epoch
	}
	slices.SortFunc(r.order, func(a, b *memory.Memory) int { return strings.Compare(a.ID, b.ID) })
	r.stats.Memories = len(r.order)
	r.stats.Transcripts = len(r.transcripts)
	return nil
}

// loadVectors reads the vectors of the loaded memories this epoch
// changes. One deleted since the scroll keeps none, as a scroll that came
// later would not have seen it.
func (r *run) loadVectors(ctx context.Context) error {
	for _, m := range r.order {
		if !r.changed(m) {
			continue
		}
		stored, err := r.c.store.Get(ctx, r.tenant, m.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read the vector of %s in %s: %w", m.ID, r.tenant, err)
		}
		m.Vector = stored.Vector
	}
	return nil
}

// changed reports whether m is new to consolidation: never seen by an
// epoch (whatever its timestamps say: an event or import may be
// backdated), or created or made valid again since the previous epoch;
// and not yet done by this one.
func (r *run) changed(m *memory.Memory) bool {
	if m.Epoch >= r.seq || !active(m) {
		return false
	}
	return m.Epoch == 0 || r.last.IsZero() || m.CreatedAt.After(r.last) || m.ValidFrom.After(r.last)
}

// mutable reports whether this epoch may still change m.
func (r *run) mutable(m *memory.Memory) bool { return m.Epoch < r.seq }

// each calls fn for every loaded memory in id order.
func (r *run) each(fn func(m *memory.Memory)) {
	for _, m := range r.order {
		fn(m)
	}
}

// touch records m's state before its first change in this epoch.
func (r *run) touch(m *memory.Memory) {
	if _, ok := r.before[m.ID]; !ok {
		r.before[m.ID] = cloneMem(m)
	}
}

// change applies fn to m and records it (payload only: fn must not change
// what m is indexed by). logged says whether the change gets its own audit
// entry (decay is logged once per epoch, not per memory).
func (r *run) change(m *memory.Memory, phase, op, reason, decider, model string, fn func(m *memory.Memory)) {
	r.touch(m)
	b := cloneMem(m)
	fn(m)
	m.ModifiedAt = r.now
	r.record(Op{Phase: phase, Op: op, MemoryIDs: []string{m.ID}, Before: []memory.Memory{b}, After: []memory.Memory{cloneMem(m)},
		Applied: true, Reason: reason, Decider: decider, Model: model})
}

// refuse records an operation that a rule refused.
func (r *run) refuse(phase, op, reason, decider, model string, ids []string) {
	var before []memory.Memory
	for _, id := range ids {
		if m := r.mems[id]; m != nil {
			before = append(before, cloneMem(m))
		}
	}
	r.stats.Refused++
	r.record(Op{Phase: phase, Op: op, MemoryIDs: ids, Before: before, Applied: false, Reason: reason, Decider: decider, Model: model})
}

func (r *run) record(op Op) { r.ops = append(r.ops, op) }

// supersede marks old as replaced by newer: it keeps every field, gets
// a link, valid_until (newer's valid_from: valid time) and invalid_at (the
// epoch's clock: record time), and leaves recall by default.
func (r *run) supersede(old *memory.Memory, newer, phase, reason, decider, model string) {
	var from time.Time
	if n := r.mems[newer]; n != nil {
		from = n.ValidSince()
	}
	r.change(old, phase, "supersede", reason, decider, model, func(m *memory.Memory) {
		m.Supersede(newer, from, r.now)
	})
	r.stats.Superseded++
}

// archive moves m out of recall and prompts, keeping it searchable on
// request.
func (r *run) archive(m *memory.Memory, phase, reason string) {
	r.change(m, phase, "archive", reason, DecidedByRule, "", func(m *memory.Memory) { m.Archived = true })
	r.stats.Archived++
}

// create adds a memory made by the epoch (merged, reconciled, distilled).
// Its id is decided by what it was made from, so a retried epoch writes
// the same record again.
func (r *run) create(m memory.Memory, phase, reason, decider, model string) *memory.Memory {
	m.Tenant = r.tenant
	m.CreatedAt, m.ModifiedAt, m.Epoch = r.now, r.now, r.seq
	if m.ValidFrom.IsZero() {
		m.ValidFrom = r.now
	}
	m.Vector = nil
	r.created = append(r.created, m)
	p := &r.created[len(r.created)-1]
	cp := cloneMem(p)
	if _, loaded := r.mems[m.ID]; loaded {
		// A retried epoch makes a memory its first try wrote: the phases
		// see the new copy, as they see it through mems.
		if i, ok := slices.BinarySearchFunc(r.order, m.ID, func(x *memory.Memory, id string) int { return strings.Compare(x.ID, id) }); ok {
			r.order[i] = &cp
		}
	}
	r.mems[m.ID] = &cp
	r.record(Op{Phase: phase, Op: "create", MemoryIDs: []string{m.ID}, After: []memory.Memory{cloneMem(p)}, Applied: true,
		Reason: reason, Decider: decider, Model: model})
	return &cp
}

// commit writes the epoch: the created memories first (embedded), then
// every changed memory stamped with the epoch, then retention deletes.
// Payload updates go in batches so a large epoch never holds one huge
// write.
func (r *run) commit(ctx context.Context) error {
	if len(r.created) > 0 {
		// The working copies carry what later phases changed on them.
		for i := range r.created {
			r.created[i] = cloneMem(r.mems[r.created[i].ID])
			r.created[i].Epoch = r.seq
		}
		if r.c.vectors != nil {
			if err := r.c.vectors.Fill(ctx, r.created); err != nil {
				return fmt.Errorf("embed memories made by the epoch of %s: %w", r.tenant, err)
			}
			for i := range r.created {
				r.created[i].EmbeddingModel = r.c.vectorModel
			}
		}
		if err := r.c.store.Upsert(ctx, r.created); err != nil {
			return fmt.Errorf("write memories made by the epoch of %s: %w", r.tenant, err)
		}
	}
	made := map[string]bool{}
	for _, m := range r.created {
		made[m.ID] = true
	}
	ids := make([]string, 0, len(r.before))
	for id := range r.before {
		if !made[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	stored, revs, err := r.stored(ctx, ids)
	if err != nil {
		return err
	}
	// Written conditionally on the reads above where the store can: a batch
	// that lost a race with another writer is read, rebased and written
	// again memory by memory (writeEach).
	var batch []memory.Memory
	var batchRevs []uint64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := store.Write(ctx, r.c.store, r.tenant, batch, batchRevs, false)
		if errors.Is(err, store.ErrConflict) {
			err = r.writeEach(ctx, batch)
		}
		if err != nil {
			return fmt.Errorf("write epoch of %s: %w", r.tenant, err)
		}
		batch, batchRevs = batch[:0], batchRevs[:0]
		return nil
	}
	var retagged []memory.Memory
	var retaggedRevs []uint64
	for _, id := range ids {
		var m, cur memory.Memory
		var rev uint64
		if r.loaded != nil {
			// Written on the revision it was loaded at (see stored).
			var ok bool
			if rev, ok = r.loaded[id]; !ok {
				continue
			}
			cur, m = r.before[id], r.written(id)
		} else {
			var ok bool
			if cur, ok = stored[id]; !ok {
				continue // deleted since the epoch read it: not written back
			}
			var moved bool
			m, moved = r.rebased(id, cur)
			if moved {
				r.stats.Rebased++
				r.c.log.InfoContext(ctx, "memory changed by another writer during the epoch: the epoch's change is rebased onto it",
					"tenant", r.tenant, "epoch", r.id, "memory", id)
			}
			rev = revs[id]
		}
		if !lexical.SameText(m, cur) {
			// Tags are indexed text: the memory is written whole, with
			// its stored vectors.
			retagged, retaggedRevs = append(retagged, m), append(retaggedRevs, rev)
			continue
		}
		batch, batchRevs = append(batch, m), append(batchRevs, rev)
		if len(batch) == updateBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := r.rewrite(ctx, retagged, retaggedRevs); err != nil {
		return err
	}
	// An archived memory past its retention is deleted only as the epoch
	// saw it: one said again (revived) or otherwise changed since is kept.
	var gone []string
	for _, id := range r.deleted {
		cur, ok := stored[id]
		if !ok {
			continue
		}
		seen := r.mems[id]
		if b, ok := r.before[id]; ok {
			seen = &b
		}
		if seen == nil || !same(*seen, cur) {
			r.c.log.InfoContext(ctx, "archived memory changed during the epoch: kept, not deleted by retention",
				"tenant", r.tenant, "epoch", r.id, "memory", id)
			continue
		}
		gone = append(gone, id)
	}
	if len(gone) > 0 {
		if err := r.c.store.Delete(ctx, r.tenant, gone...); err != nil {
			return fmt.Errorf("delete expired archived memories of %s: %w", r.tenant, err)
		}
	}
	return nil
}

// stored is what the commit writes onto: the state and revision of each
// changed memory (ids) and of each memory retention deletes, read again
// now. With load revisions (r.loaded) only the latter: a changed memory's
// write is conditional on the revision it was loaded at, so one another
// writer changed during the epoch loses, and its batch is read, rebased
// and written memory by memory (writeEach) — the tenant is not read again
// for the common case of nobody else writing. Retention's deletes cannot
// be conditional: those memories are always read again.
func (r *run) stored(ctx context.Context, ids []string) (map[string]memory.Memory, map[string]uint64, error) {
	if r.loaded == nil {
		return r.current(ctx, append(slices.Clone(ids), r.deleted...))
	}
	return r.current(ctx, r.deleted)
}

// rewrite upserts memories whose tags changed, each with its stored
// vectors, conditionally on revs (see commit).
func (r *run) rewrite(ctx context.Context, ms []memory.Memory, revs []uint64) error {
	for start := 0; start < len(ms); start += updateBatch {
		batch := ms[start:min(start+updateBatch, len(ms))]
		for i := range batch {
			stored, err := r.c.store.Get(ctx, r.tenant, batch[i].ID)
			if errors.Is(err, store.ErrNotFound) {
				continue // the conditional write below finds it gone
			}
			if err != nil {
				return fmt.Errorf("read the vector of %s: %w", batch[i].ID, err)
			}
			batch[i].Vector, batch[i].ChunkVectors, batch[i].EmbeddingModel = stored.Vector, stored.ChunkVectors, stored.EmbeddingModel
		}
		err := store.Write(ctx, r.c.store, r.tenant, batch, revs[start:start+len(batch)], true)
		if errors.Is(err, store.ErrConflict) {
			err = r.writeEach(ctx, batch)
		}
		if err != nil {
			return fmt.Errorf("write epoch of %s: %w", r.tenant, err)
		}
	}
	return nil
}

// written is the epoch's version of memory id as the commit writes it:
// stamped with the epoch, without vectors (a payload write).
func (r *run) written(id string) memory.Memory {
	m := cloneMem(r.mems[id])
	m.Epoch = r.seq
	m.Vector, m.ChunkVectors = nil, nil
	return m
}

// rebased is the epoch's version of memory id carried onto cur, the memory
// as stored now (see rebase), and whether another writer had changed it.
func (r *run) rebased(id string, cur memory.Memory) (memory.Memory, bool) {
	return rebase(r.before[id], r.written(id), cur)
}

// writeEach writes the epoch's version of each memory of a batch that
// lost a race: read again, rebased onto what it is now and written whole
// with its vectors, one by one and conditionally (store.Update), so that
// another writer's change is never overwritten.
func (r *run) writeEach(ctx context.Context, batch []memory.Memory) error {
	counted := map[string]bool{}
	for _, b := range batch {
		_, err := store.Update(ctx, r.c.store, r.tenant, b.ID, true, func(m *memory.Memory) (bool, error) {
			merged, moved := r.rebased(b.ID, *m)
			if moved && !counted[b.ID] {
				counted[b.ID] = true
				r.stats.Rebased++
				r.c.log.InfoContext(ctx, "memory changed by another writer during the epoch: the epoch's change is rebased onto it",
					"tenant", r.tenant, "epoch", r.id, "memory", b.ID)
			}
			// Written whole: with the vectors it has now.
			merged.Vector, merged.ChunkVectors, merged.EmbeddingModel = m.Vector, m.ChunkVectors, m.EmbeddingModel
			*m = merged
			return true, nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("write %s after a lost race: %w", b.ID, err)
		}
	}
	return nil
}

// updateBatch is how many memories one payload write carries.
var updateBatch = 2000

// cloneMem copies m deeply enough that changing the copy leaves m alone.
func cloneMem(m *memory.Memory) memory.Memory { return m.Clone() }
