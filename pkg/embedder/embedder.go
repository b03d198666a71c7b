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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Config of the embedder module.
type Config struct {
	Concurrency    int
	BatchSize      int
	BatchLinger    time.Duration
	DedupThreshold float64
	HandlerTimeout time.Duration
	MaxDeliver     int
	ShortContent   int
}

// RegisterFlags adds the embedder flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.Concurrency, prefix+"embedder-concurrency", 32, "facts handled at once (they share model batches)")
	fs.IntVar(&c.BatchSize, prefix+"embedder-batch-size", 32, "most texts in one model call")
	fs.DurationVar(&c.BatchLinger, prefix+"embedder-batch-linger", 5*time.Millisecond, "how long a model batch waits to fill")
	fs.Float64Var(&c.DedupThreshold, prefix+"dedup-threshold", 0.92, "cosine similarity at or above which a new fact reinforces an existing memory instead of being inserted")
	fs.DurationVar(&c.HandlerTimeout, prefix+"embedder-timeout", 60*time.Second, "time limit for storing one fact")
	fs.IntVar(&c.MaxDeliver, prefix+"embedder-max-deliver", 10, "deliveries of one fact before it is dead-lettered")
	fs.IntVar(&c.ShortContent, prefix+"embedder-short-content", 300, "memories up to this many characters are embedded as \"key: content\"")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Concurrency < 1:
		return fmt.Errorf("embedder-concurrency must be at least 1 (got %d)", c.Concurrency)
	case c.BatchSize < 1:
		return fmt.Errorf("embedder-batch-size must be at least 1 (got %d)", c.BatchSize)
	case c.DedupThreshold <= 0 || c.DedupThreshold > 1:
		return fmt.Errorf("dedup-threshold must be in (0, 1] (got %g)", c.DedupThreshold)
	case c.HandlerTimeout <= 0:
		return errors.New("embedder-timeout must be positive")
	case c.MaxDeliver < 1:
		return fmt.Errorf("embedder-max-deliver must be at least 1 (got %d)", c.MaxDeliver)
	}
	return nil
}

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
	batch    *batcher
	consumer *bus.Consumer
	// locks serialise read-modify-write of one memory within the process.
	locks    [64]sync.Mutex
	outcomes *prometheus.CounterVec
}

// New builds the module.
func New(cfg Config, st store.Store, b Bus, model embed.Embedder, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Embedder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Embedder{cfg: cfg, store: st, bus: b, model: model, log: log, now: now}
	e.outcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_embedder_facts_total", Help: "Facts handled, by outcome (inserted, reinforced, duplicate, feedback)."}, []string{"outcome"})
	if reg != nil {
		reg.MustRegister(e.outcomes)
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
	return nil
}

// Stop drains in-flight facts, then stops the model batcher.
func (e *Embedder) Stop(ctx context.Context) error {
	var err error
	if e.consumer != nil {
		err = e.consumer.Stop(ctx)
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
	unlock := e.lockID(m.Tenant, m.ID)
	existing, err := e.store.Get(ctx, m.Tenant, m.ID)
	switch {
	case err == nil:
		if replacesContent(existing, m) {
			defer unlock()
			return e.replace(ctx, existing, m, f.SourceEvent)
		}
		unlock()
		return e.reinforce(ctx, existing, m, f.SourceEvent, "duplicate")
	case !errors.Is(err, store.ErrNotFound):
		unlock()
		return fmt.Errorf("look up memory %s: %w", m.ID, err)
	}
	near, err := e.insert(ctx, m, f.SourceEvent)
	unlock()
	if err != nil {
		return err
	}
	if near != nil {
		return e.reinforce(ctx, *near, m, f.SourceEvent, "reinforced")
	}
	e.outcomes.WithLabelValues("inserted").Inc()
	return e.announce(ctx, m, memory.StoredInserted, f.SourceEvent)
}

// insert embeds and stores a new memory, unless a near duplicate exists,
// which it returns instead. The caller holds the memory id's lock.
func (e *Embedder) insert(ctx context.Context, m memory.Memory, source string) (*memory.Memory, error) {
	vec, err := e.batch.Embed(ctx, EmbedText(m, e.cfg.ShortContent))
	if err != nil {
		return nil, fmt.Errorf("embed fact %s: %w", m.ID, err)
	}
	near, err := e.store.Search(ctx, store.Query{Tenant: m.Tenant, Vector: vec, K: 1,
		Filter: store.Filter{Namespaces: []string{m.Namespace}, Subjects: []string{m.Subject}}})
	if err != nil {
		return nil, fmt.Errorf("search near duplicates of %s: %w", m.ID, err)
	}
	if len(near) > 0 && near[0].Score >= e.cfg.DedupThreshold && near[0].Memory.ID != m.ID {
		return &near[0].Memory, nil
	}
	m.Vector = vec
	m.EmbeddingModel = e.model.Model()
	m.RepetitionCount = 1
	m.AddSource(source)
	if err := e.store.Upsert(ctx, []memory.Memory{m}); err != nil {
		return nil, fmt.Errorf("store memory %s: %w", m.ID, err)
	}
	return nil, nil
}

// reinforce counts another observation of an existing memory, once per
// source event. The memory is modified as of the observation's own time,
// not the wall clock, so replayed or imported history does not look fresh.
func (e *Embedder) reinforce(ctx context.Context, m, seen memory.Memory, source, outcome string) error {
	unlock := e.lockID(m.Tenant, m.ID)
	defer unlock()
	// Re-read under the lock: a concurrent handler may have reinforced it.
	if cur, err := e.store.Get(ctx, m.Tenant, m.ID); err == nil {
		m = cur
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("look up memory %s: %w", m.ID, err)
	}
	if !m.HasSource(source) {
		m.RepetitionCount++
		boostStyle(&m)
		m.AddSource(source)
		if ts := seen.CreatedAt; ts.After(m.ModifiedAt) {
			m.ModifiedAt = ts
		}
		if err := e.store.Upsert(ctx, []memory.Memory{m}); err != nil {
			return fmt.Errorf("reinforce memory %s: %w", m.ID, err)
		}
	}
	e.outcomes.WithLabelValues(outcome).Inc()
	return e.announce(ctx, m, memory.StoredReinforced, source)
}

func (e *Embedder) feedback(ctx context.Context, f *memory.FactMessage) error {
	if f.Feedback == nil {
		return bus.Permanent(errors.New("feedback fact without feedback"))
	}
	m, err := e.store.Get(ctx, f.Tenant, f.Feedback.MemoryID)
	if errors.Is(err, store.ErrNotFound) {
		return bus.Permanent(fmt.Errorf("feedback for unknown memory %s", f.Feedback.MemoryID))
	}
	if err != nil {
		return fmt.Errorf("look up memory %s: %w", f.Feedback.MemoryID, err)
	}
	unlock := e.lockID(m.Tenant, m.ID)
	defer unlock()
	if m, err = e.store.Get(ctx, f.Tenant, f.Feedback.MemoryID); err != nil {
		return fmt.Errorf("look up memory %s: %w", f.Feedback.MemoryID, err)
	}
	if m.HasSource(f.SourceEvent) {
		return nil
	}
	if f.Feedback.Success {
		m.SuccessCount++
	}
	m.AddSource(f.SourceEvent)
	m.ModifiedAt = e.now().UTC()
	if err := e.store.Upsert(ctx, []memory.Memory{m}); err != nil {
		return fmt.Errorf("record feedback on %s: %w", m.ID, err)
	}
	e.outcomes.WithLabelValues("feedback").Inc()
	return e.announce(ctx, m, memory.StoredUpdated, f.SourceEvent)
}

func (e *Embedder) announce(ctx context.Context, m memory.Memory, op memory.StoredOp, source string) error {
	data, err := json.Marshal(memory.StoredEvent{Tenant: m.Tenant, ID: m.ID, Op: op, Domain: m.Domain, SourceEvent: source})
	if err != nil {
		return bus.Permanent(fmt.Errorf("encode stored event: %w", err))
	}
	if err := e.bus.Publish(ctx, bus.Msg{Subject: bus.StoredSubject(m.Tenant), ID: "stored:" + m.ID + ":" + source, Data: data}); err != nil {
		return fmt.Errorf("announce memory %s: %w", m.ID, err)
	}
	return nil
}

// lockID locks the stripe of a memory id.
func (e *Embedder) lockID(tenant, id string) func() {
	h := fnv.New32a()
	h.Write([]byte(tenant))
	h.Write([]byte(id))
	mu := &e.locks[h.Sum32()%uint32(len(e.locks))]
	mu.Lock()
	return mu.Unlock
}

// EmbedText is the text embedded for a memory: "key: content" for short
// memories (the key adds the topic words a query is likely to use).
func EmbedText(m memory.Memory, short int) string {
	if m.Key != "" && len(m.Content) <= short {
		return m.Key + ": " + m.Content
	}
	return m.Content
}
