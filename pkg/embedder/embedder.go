// Package embedder is the embedder module: it consumes facts, embeds them,
// deduplicates them against the tenant's memories, writes them to the store
// and announces what it stored.
package embedder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Bus is what the embedder needs of the bus.
type Bus interface {
	Publish(ctx context.Context, m bus.Msg) error
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
}

// Embedder is the embedder module.
type Embedder struct {
	cfg      Config
	store    store.Store
	bus      Bus
	model    embed.Embedder
	log      *slog.Logger
	now      func() time.Time
	split    *chunk.Splitter
	chat     Chatter          // nil: no insert-merge
	locks    lock.Locker      // reindex leases
	statuses *ReindexStatuses // nil: reindex state is not recorded
	batch    *batcher
	consumer *bus.Consumer
	reindexC *bus.Consumer
	// mu serialises read-modify-write of one memory within the process.
	mu [64]sync.Mutex
	// sessMu serialises the transcript memories of a session (context.go).
	sessMu   [16]sync.Mutex
	outcomes *prometheus.CounterVec
	merges   *prometheus.CounterVec
	reindexN *prometheus.CounterVec
}

// New builds the module.
func New(cfg Config, st store.Store, b Bus, model embed.Embedder, reg prometheus.Registerer, log *slog.Logger, now func() time.Time, opts ...Option) (*Embedder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	split, err := chunk.New(cfg.Chunk)
	if err != nil {
		return nil, err
	}
	e := &Embedder{cfg: cfg, store: st, bus: b, model: model, log: log, now: now, split: split}
	for _, o := range opts {
		o(e)
	}
	if e.locks == nil {
		e.locks = memlock.New()
	}
	e.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_embedder_facts_total", Help: "Facts handled, by outcome (inserted; distinct_detail: inserted although a memory passed the near-duplicate screen, because a number, date, name, negation, key or word differs or the fact adds one; reinforced; duplicate; revived: a superseded or archived memory said again, made current; merged; replaced; feedback)."}, []string{"outcome"})
	e.merges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_embedder_insert_merge_total", Help: "Insert-merge judgements by the LLM, by outcome (merged, distinct, already; failed, lost_detail: the merged statement dropped or changed a detail of either; the fact was inserted instead)."}, []string{"outcome"})
	e.reindexN = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_embedder_reindexed_total", Help: "Memories moved to the current embedding model by reindex, by pass (adopted: brought from another model's collection, cleared: vector dropped, embedded: new vector stored; deferred: a new fact stored without a vector because the tenant's vectors come from another model)."}, []string{"pass"})
	if reg != nil {
		reg.MustRegister(e.outcomes, e.merges, e.reindexN)
	}
	return e, nil
}

// Durable is the embedder's consumer name.
const Durable = "embedder"

// Start attaches the consumer.
func (e *Embedder) Start(ctx context.Context) error {
	e.batch = newBatcher(e.model, e.cfg.BatchSize, e.cfg.BatchLinger)
	c, err := e.bus.Consume(ctx, bus.ConsumerConfig{
		Durable:        Durable,
		Stream:         bus.StreamFact,
		MaxDeliver:     e.cfg.MaxDeliver,
		HandlerTimeout: e.cfg.HandlerTimeout,
		AckWait:        e.cfg.HandlerTimeout + 5*time.Second,
		Concurrency:    e.cfg.Concurrency,
	}, e.Handle, e.log)
	if err != nil {
		e.batch.Close()
		return fmt.Errorf("consume facts: %w", err)
	}
	e.consumer = c
	if err := e.startReindex(ctx); err != nil {
		_ = c.Stop(ctx)
		e.batch.Close()
		return err
	}
	return nil
}

// Stop drains in-flight facts, then stops the model batcher.
func (e *Embedder) Stop(ctx context.Context) error {
	var err error
	if e.reindexC != nil {
		err = e.reindexC.Stop(ctx)
	}
	if e.consumer != nil {
		err = errors.Join(err, e.consumer.Stop(ctx))
	}
	if e.batch != nil {
		e.batch.Close()
	}
	return err
}

// Handle stores one fact. Every path is idempotent: the memory id is
// derived from its content, and reinforcement records the source event so a
// redelivered fact reinforces nothing twice.
func (e *Embedder) Handle(ctx context.Context, d *bus.Delivery) error {
	var f memory.FactMessage
	if err := json.Unmarshal(d.Data, &f); err != nil {
		return bus.Permanent(fmt.Errorf("decode fact: %w", err))
	}
	ctx = usage.WithTenant(ctx, f.Tenant)
	switch f.Op {
	case memory.FactFeedback:
		return e.feedback(ctx, &f)
	case memory.FactUpsert:
		return e.upsert(ctx, &f)
	}
	return bus.Permanent(fmt.Errorf("unknown fact op %q", f.Op))
}

func (e *Embedder) upsert(ctx context.Context, f *memory.FactMessage) error {
	m := f.Memory
	if m.Tenant != f.Tenant {
		return bus.Permanent(fmt.Errorf("fact %s: tenant %q does not match message tenant %q", m.ID, m.Tenant, f.Tenant))
	}
	if err := m.Validate(); err != nil {
		return bus.Permanent(fmt.Errorf("invalid fact: %w", err))
	}
	var said *Embedding
	if m.Transcript() {
		// Embedded before the session's lock, so a long conversation's
		// messages are embedded in batches, not one after the other; a
		// message already stored (another path brought it) is not.
		if _, err := e.store.Get(ctx, m.Tenant, m.ID); errors.Is(err, store.ErrNotFound) {
			vec, err := e.embedMemory(ctx, m)
			if err != nil {
				return fmt.Errorf("embed fact %s: %w", m.ID, err)
			}
			said = &vec
		}
		unlockSession := e.lockSession(&m)
		defer unlockSession()
	}
	unlock := e.lockID(m.Tenant, m.ID)
	existing, rev, err := e.getRev(ctx, m.Tenant, m.ID)
	switch {
	case err == nil:
		if replacesContent(existing, m) {
			defer unlock()
			return e.replace(ctx, existing, rev, m, f.SourceEvent)
		}
		unlock()
		return e.reinforce(ctx, existing, m, f.SourceEvent, "duplicate")
	case !errors.Is(err, store.ErrNotFound):
		unlock()
		return fmt.Errorf("look up memory %s: %w", m.ID, err)
	}
	var next *memory.Memory
	if m.Transcript() {
		if next, err = e.linkContext(ctx, &m); err != nil {
			unlock()
			return err
		}
	}
	var vec Embedding
	var found match
	if said != nil {
		vec = *said // a transcript memory: never folded (see near)
	} else if vec, found, err = e.near(ctx, m); err != nil {
		unlock()
		return err
	}
	if m.Quarantined() {
		// Kept as said, never folded into a clean memory (nor revived
		// through one): what it says must stay out of prompts.
		found = match{}
	}
	if found.dup != nil {
		unlock()
		return e.reinforce(ctx, *found.dup, m, f.SourceEvent, "reinforced")
	}
	if found.merge != nil && e.chat != nil {
		// The judgement takes seconds: it runs without the lock and
		// applies only if the match is unchanged (see merge).
		unlock()
		done, err := e.merge(ctx, found.merge.Memory, m, f.SourceEvent)
		if done || err != nil {
			return err
		}
		unlock = e.lockID(m.Tenant, m.ID)
		if cur, err := e.store.Get(ctx, m.Tenant, m.ID); err == nil {
			// Stored by a concurrent delivery while the LLM judged.
			unlock()
			return e.reinforce(ctx, cur, m, f.SourceEvent, "duplicate")
		} else if !errors.Is(err, store.ErrNotFound) {
			unlock()
			return fmt.Errorf("look up memory %s: %w", m.ID, err)
		}
	}
	err = e.insert(ctx, m, vec, f.SourceEvent)
	unlock()
	if err != nil {
		return err
	}
	outcome := "inserted"
	if a := found.apart; a != nil {
		outcome = "distinct_detail"
		e.log.DebugContext(ctx, "near duplicate kept apart by its details, fact inserted", "tenant", m.Tenant,
			"memory", a.id, "fact", m.ID, "verdict", a.verdict.Verdict.String(), "reason", a.verdict.Reason)
	}
	e.outcomes.WithLabelValues(outcome).Inc()
	if err := e.relinkNext(ctx, m, next); err != nil {
		return err // redelivered: the memory is there, the link is made again
	}
	return e.announce(ctx, m, memory.StoredInserted, f.SourceEvent)
}

// near embeds a new fact and classifies its nearest memories of the same
// namespace and subject (across domains). Superseded memories are
// candidates too: one said again is reinforced and revived (classify
// prefers a current one, and merges only into current ones).
func (e *Embedder) near(ctx context.Context, m memory.Memory) (Embedding, match, error) {
	vec, err := e.embedMemory(ctx, m)
	if err != nil {
		return Embedding{}, match{}, fmt.Errorf("embed fact %s: %w", m.ID, err)
	}
	if m.Transcript() || slices.Contains(m.Tags, alias.Tag) {
		// A message is its own memory, kept as said: never folded into
		// another, whatever it resembles (the same message by another
		// path has the same id and was found above). So is an alias (its
		// id is its subject, name and word).
		return vec, match{}, nil
	}
	// Whole memories against whole memories (no Chunks): a short fact that
	// matches one part of a long memory is not its duplicate. Transcript
	// memories are not candidates: a fact folded into the message it was
	// said in would be lost as a fact.
	hits, err := e.store.Search(ctx, store.Query{Tenant: m.Tenant, Vector: vec.Vector, K: e.cfg.DedupCandidates,
		Filter: store.Filter{Namespaces: []string{m.Namespace}, Subjects: []string{m.Subject}, IncludeSuperseded: true,
			ExcludeTags: []string{memory.TranscriptTag, alias.Tag}}})
	if errors.Is(err, store.ErrDimension) {
		// The tenant's vectors come from another model (no reindex yet):
		// no neighbour to compare with; insert stores the fact pending.
		return vec, match{}, nil
	}
	if err != nil {
		return Embedding{}, match{}, fmt.Errorf("search near duplicates of %s: %w", m.ID, err)
	}
	return vec, e.classify(m, hits, e.chat != nil), nil
}

// insert stores a new memory with its vector. The caller holds the memory
// id's lock.
func (e *Embedder) insert(ctx context.Context, m memory.Memory, vec Embedding, source string) error {
	vec.Apply(&m)
	m.EmbeddingModel = e.model.Model()
	m.RepetitionCount = 1
	m.AddSource(source)
	if _, err := e.put(ctx, m); err != nil {
		return fmt.Errorf("store memory %s: %w", m.ID, err)
	}
	return nil
}

// put stores a memory carrying a vector of the current model. When the
// store refuses its width (the tenant's memories come from another model
// and no reindex has run yet), it is stored pending instead, without
// vector or model name: found by BM25 until `recollect reindex` embeds it.
// A fact is never dropped over a model change. It returns what it stored.
func (e *Embedder) put(ctx context.Context, m memory.Memory) (memory.Memory, error) {
	return e.putIf(ctx, m, 0)
}

// putIf is put, conditional on the memory's stored revision still being
// rev (see getRev; 0: unconditional): a lost race fails with
// store.ErrConflict, and the fact is redelivered and handled afresh.
func (e *Embedder) putIf(ctx context.Context, m memory.Memory, rev uint64) (memory.Memory, error) {
	err := store.Write(ctx, e.store, m.Tenant, []memory.Memory{m}, []uint64{rev}, true)
	if !errors.Is(err, store.ErrDimension) {
		return m, err
	}
	e.log.WarnContext(ctx, "the tenant's vectors come from another embedding model: memory stored without a vector until a reindex",
		"tenant", m.Tenant, "memory", m.ID, "model", m.EmbeddingModel, "err", err)
	m.Vector, m.EmbeddingModel = nil, ""
	if err := store.Write(ctx, e.store, m.Tenant, []memory.Memory{m}, []uint64{rev}, true); err != nil {
		return m, err
	}
	e.reindexN.WithLabelValues("deferred").Inc()
	return m, nil
}

// reinforce counts another observation of an existing memory, once per
// source event. The memory is modified as of the observation's own time,
// not the wall clock, so replayed or imported history does not look fresh.
// A superseded or archived memory said again is revived (see revive).
func (e *Embedder) reinforce(ctx context.Context, m, seen memory.Memory, source, outcome string) error {
	unlock := e.lockID(m.Tenant, m.ID)
	defer unlock()
	// Read and written under the lock, and conditionally on what was read:
	// another handler (of this process or another replica) or an epoch
	// writing the memory meanwhile makes the write lose the race, and the
	// memory is read and reinforced again, so neither write is lost.
	op, out := memory.StoredReinforced, outcome
	cur, err := store.Update(ctx, e.store, m.Tenant, m.ID, true, func(m *memory.Memory) (bool, error) {
		op, out = memory.StoredReinforced, outcome
		if m.HasSource(source) {
			if m.RepetitionCount <= 1 {
				// Made by this very fact: a redelivery after a crash
				// between the write and its announcement. Announced as
				// what it was, an insert (same message id: published once).
				op = memory.StoredInserted
			}
			return false, nil
		}
		m.RepetitionCount++
		restate(m, seen)
		boostStyle(m)
		m.AddSource(source)
		if ts := seen.CreatedAt; ts.After(m.ModifiedAt) {
			m.ModifiedAt = ts
		}
		if revive(m, e.observedAt(seen)) {
			op, out = memory.StoredUpdated, "revived"
		}
		return true, nil
	})
	if err != nil {
		// Deleted since it was matched: the redelivered fact finds it
		// gone and is stored as new.
		return fmt.Errorf("reinforce memory %s: %w", m.ID, err)
	}
	if out == "revived" {
		e.log.InfoContext(ctx, "memory said again, revived", "tenant", cur.Tenant, "memory", cur.ID, "fact", seen.ID)
	}
	e.outcomes.WithLabelValues(out).Inc()
	return e.announce(ctx, cur, op, source)
}

func (e *Embedder) feedback(ctx context.Context, f *memory.FactMessage) error {
	if f.Feedback == nil {
		return bus.Permanent(errors.New("feedback fact without feedback"))
	}
	unlock := e.lockID(f.Tenant, f.Feedback.MemoryID)
	defer unlock()
	wrote := false
	m, err := store.Update(ctx, e.store, f.Tenant, f.Feedback.MemoryID, true, func(m *memory.Memory) (bool, error) {
		if wrote = !m.HasSource(f.SourceEvent); !wrote {
			return false, nil
		}
		if f.Feedback.Success {
			m.SuccessCount++
		}
		m.AddSource(f.SourceEvent)
		m.ModifiedAt = e.now().UTC()
		return true, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return bus.Permanent(fmt.Errorf("feedback for unknown memory %s", f.Feedback.MemoryID))
	}
	if err != nil {
		return fmt.Errorf("record feedback on %s: %w", f.Feedback.MemoryID, err)
	}
	if !wrote {
		return nil
	}
	e.outcomes.WithLabelValues("feedback").Inc()
	return e.announce(ctx, m, memory.StoredUpdated, f.SourceEvent)
}

func (e *Embedder) announce(ctx context.Context, m memory.Memory, op memory.StoredOp, source string) error {
	data, err := json.Marshal(memory.StoredEvent{Tenant: m.Tenant, ID: m.ID, Op: op, Domain: m.Domain, SourceEvent: source, State: memory.StoredState(&m)})
	if err != nil {
		return bus.Permanent(fmt.Errorf("encode stored event: %w", err))
	}
	if err := e.bus.Publish(ctx, bus.Msg{Subject: bus.StoredSubject(m.Tenant), ID: "stored:" + m.ID + ":" + source, Data: data}); err != nil {
		return fmt.Errorf("announce memory %s: %w", m.ID, err)
	}
	return nil
}

// getRev reads a memory with its revision when the store writes
// conditionally (store.ConditionalWriter), else with revision 0. The id
// locks keep this process's handlers apart; revisions keep replicas and
// other modules apart.
func (e *Embedder) getRev(ctx context.Context, tenant, id string) (memory.Memory, uint64, error) {
	return store.Read(ctx, e.store, tenant, id)
}

// lockID locks the stripe of a memory id.
func (e *Embedder) lockID(tenant, id string) func() {
	mu := &e.mu[e.stripe(tenant, id)]
	mu.Lock()
	return mu.Unlock
}

// lockIDs locks the stripes of several memory ids, in stripe order so
// that two batches cannot deadlock (single-id holders never wait for a
// second stripe).
func (e *Embedder) lockIDs(tenant string, ids []string) func() {
	stripes := make([]int, 0, len(ids))
	for _, id := range ids {
		stripes = append(stripes, e.stripe(tenant, id))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, s := range stripes {
		e.mu[s].Lock()
	}
	return func() {
		for _, s := range stripes {
			e.mu[s].Unlock()
		}
	}
}

func (e *Embedder) stripe(tenant, id string) int {
	h := fnv.New32a()
	h.Write([]byte(tenant))
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(len(e.mu)))
}

// EmbedText is the text embedded for a memory: "key: content" for short
// memories (the key adds the topic words a query is likely to use). A
// transcript memory is embedded as said: its key names its session, not
// its topic.
func EmbedText(m memory.Memory, short int) string {
	if m.Key != "" && len(m.Content) <= short && !m.Transcript() {
		return m.Key + ": " + m.Content
	}
	return m.Content
}
