package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Config of the consolidator module.
type Config struct {
	Interval time.Duration
	LeaseTTL time.Duration
	Rules    Rules
}

// RegisterFlags adds the consolidator flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.DurationVar(&c.Interval, prefix+"consolidate-interval", 30*time.Minute, "how often every active tenant gets an epoch (0 = only on request)")
	fs.DurationVar(&c.LeaseTTL, prefix+"consolidate-lease-ttl", time.Minute, "lease that keeps one epoch per tenant at a time; renewed while the epoch runs")
	c.Rules.RegisterFlags(prefix, fs)
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Interval < 0:
		return errors.New("consolidate-interval must not be negative")
	case c.LeaseTTL < time.Second:
		return fmt.Errorf("consolidate-lease-ttl must be at least 1s (got %s)", c.LeaseTTL)
	}
	return c.Rules.Validate()
}

// Bus is what the consolidator needs of the bus.
type Bus interface {
	Publish(ctx context.Context, m bus.Msg) error
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
	JetStream() jetstream.JetStream
}

// Consolidator is the consolidator module.
type Consolidator struct {
	cfg         Config
	store       store.Store
	bus         Bus
	locks       lock.Locker
	log         *slog.Logger
	now         func() time.Time
	chat        Chat
	vectors     Vectors
	vectorModel string
	journal     Journal
	state       jetstream.KeyValue
	queue       jetstream.KeyValue
	consumer    *bus.Consumer
	stop        chan struct{}
	stopOnce    sync.Once
	wg          sync.WaitGroup

	epochs           *prometheus.CounterVec
	ops              *prometheus.CounterVec
	archived         *prometheus.CounterVec
	llmFailures      *prometheus.CounterVec
	retentionDeleted prometheus.Counter
	journalFailures  prometheus.Counter
	queueDepth       prometheus.Gauge

	depthMu sync.Mutex
	depths  map[string]int // pair queue depth per tenant, as this process last saved it
}

// Vectors embeds memories the way the embedder stores them
// (embedder.Vectorizer): the epoch embeds the memories it makes, a long
// one by its chunks too.
type Vectors interface {
	// Fill sets each memory's vector and, for long content, its chunks'.
	Fill(ctx context.Context, mems []memory.Memory) error
}

// Journal receives every operation of every epoch, applied or refused,
// with the memories before and after: the audit log.
type Journal interface {
	Record(ctx context.Context, e EpochRecord) error
}

// EpochRecord is one epoch's operations.
type EpochRecord struct {
	Tenant string
	Epoch  string // the request id
	Seq    int64
	At     time.Time
	Ops    []Op
}

// Option configures a Consolidator.
type Option func(*Consolidator)

// WithLLM lets the epoch use the LLM at its level (off, auto, full).
func WithLLM(chat Chat) Option { return func(c *Consolidator) { c.chat = chat } }

// WithVectors embeds the memories an epoch makes (merged, reconciled,
// distilled) with model's vectors.
func WithVectors(v Vectors, model string) Option {
	return func(c *Consolidator) { c.vectors, c.vectorModel = v, model }
}

// WithJournal writes every operation to the audit log.
func WithJournal(j Journal) Option { return func(c *Consolidator) { c.journal = j } }

// Durable is the consolidator's consumer name.
const Durable = "consolidator"

// StateBucket keeps each tenant's epoch history.
const StateBucket = "recollect_epochs"

// New builds the module.
func New(cfg Config, st store.Store, b Bus, locks lock.Locker, reg prometheus.Registerer, log *slog.Logger, now func() time.Time, opts ...Option) (*Consolidator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Consolidator{cfg: cfg, store: st, bus: b, locks: locks, log: log, now: now, stop: make(chan struct{}), depths: map[string]int{}}
	for _, o := range opts {
		o(c)
	}
	if c.chat != nil && c.chat.Level() == llm.LevelOff {
		c.chat = nil
	}
	c.epochs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_consolidator_epochs_total", Help: "Epochs, by outcome."}, []string{"outcome"})
	c.ops = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_consolidator_operations_total",
		Help: "Epoch operations by phase, operation and whether they were applied or refused."}, []string{"phase", "op", "applied"})
	c.archived = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_consolidator_archived_total",
		Help: "Memories archived by a retention policy (kept, searchable on request, out of recall and prompts)."}, []string{"policy"})
	c.llmFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_consolidator_llm_failures_total",
		Help: "Consolidation LLM calls that failed or answered unusably; their memories wait for the next epoch."}, []string{"component"})
	c.retentionDeleted = prometheus.NewCounter(prometheus.CounterOpts{Name: "recollect_consolidator_retention_deleted_total",
		Help: "Archived memories deleted because they outlived --archived-retention."})
	c.journalFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "recollect_consolidator_journal_failures_total",
		Help: "Epochs whose operations could not be written to the audit log (the epoch is retried)."})
	c.queueDepth = prometheus.NewGauge(prometheus.GaugeOpts{Name: "recollect_consolidator_pair_queue_depth",
		Help: "Merge, reconcile and review pairs waiting for a later epoch's LLM budget, over the tenants this consolidator last ran."})
	if reg != nil {
		reg.MustRegister(c.epochs, c.ops, c.archived, c.llmFailures, c.retentionDeleted, c.journalFailures, c.queueDepth)
	}
	return c, nil
}

// Start opens the state bucket, attaches the request consumer and starts
// the schedule.
func (c *Consolidator) Start(ctx context.Context) error {
	kv, err := c.bus.JetStream().CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: StateBucket, Description: "consolidation epoch history per tenant", Storage: jetstream.FileStorage})
	if err != nil {
		return fmt.Errorf("open epoch state bucket: %w", err)
	}
	c.state = kv
	if err := c.openQueue(ctx); err != nil {
		return err
	}
	cons, err := c.bus.Consume(ctx, bus.ConsumerConfig{
		Durable: Durable, Stream: bus.StreamEvent, FilterSubjects: []string{bus.ConsolidateSubject("*")},
		// An epoch may run for minutes; the heartbeat keeps its request
		// while it runs, so a request held by a killed consolidator comes
		// back after AckWait (1 min), not after the 10 min an epoch may take.
		MaxDeliver: 5, HandlerTimeout: 10 * time.Minute, AckWait: time.Minute, Heartbeat: 15 * time.Second, Concurrency: 2,
	}, c.Handle, c.log)
	if err != nil {
		return fmt.Errorf("consume consolidation requests: %w", err)
	}
	c.consumer = cons
	if c.cfg.Interval > 0 {
		c.wg.Add(1)
		go c.schedule()
	}
	return nil
}

// Stop ends the schedule and drains running epochs.
func (c *Consolidator) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() { close(c.stop) })
	c.wg.Wait()
	if c.consumer != nil {
		return c.consumer.Stop(ctx)
	}
	return nil
}

// schedule asks for an epoch per tenant every interval. The request id is
// the tenant and the tick, so several consolidator replicas ticking at once
// produce one request (the stream's duplicate window drops the rest).
func (c *Consolidator) schedule() {
	defer c.wg.Done()
	t := time.NewTicker(c.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tenants, err := c.store.Tenants(ctx)
		if err != nil {
			c.log.Warn("list tenants for scheduled epochs", "error", err)
		}
		tick := c.now().Truncate(c.cfg.Interval).UTC().Format(time.RFC3339)
		for _, tenant := range tenants {
			if err := Request(ctx, c.bus, tenant, "schedule:"+tick); err != nil {
				c.log.Warn("request scheduled epoch", "tenant", tenant, "error", err)
			}
		}
		cancel()
	}
}

// Request publishes an epoch request for a tenant.
func Request(ctx context.Context, b interface {
	Publish(context.Context, bus.Msg) error
}, tenant, id string) error {
	data, err := json.Marshal(memory.ConsolidateRequest{Tenant: tenant, ID: id})
	if err != nil {
		return err
	}
	return b.Publish(ctx, bus.Msg{Subject: bus.ConsolidateSubject(tenant), ID: "consolidate:" + tenant + ":" + id, Data: data})
}

// epochState is a tenant's epoch history. Pending is the epoch in
// progress: a retry of it (the same request redelivered, or the next
// request after a crash) resumes it with the same sequence number and
// clock, so the memories it already wrote are left alone.
type epochState struct {
	LastID  string        `json:"last_id"`
	Starts  []time.Time   `json:"starts"`
	Count   int64         `json:"count"`
	Pending *pendingEpoch `json:"pending,omitempty"`
}

type pendingEpoch struct {
	ID    string    `json:"id"`
	Seq   int64     `json:"seq"`
	Begin time.Time `json:"begin"`
}

const keepStarts = 16

// Handle runs one requested epoch.
func (c *Consolidator) Handle(ctx context.Context, d *bus.Delivery) error {
	var req memory.ConsolidateRequest
	if err := json.Unmarshal(d.Data, &req); err != nil {
		return bus.Permanent(fmt.Errorf("decode consolidation request: %w", err))
	}
	if !memory.ValidTenant(req.Tenant) || req.ID == "" {
		return bus.Permanent(fmt.Errorf("consolidation request needs a valid tenant and id (got %q, %q)", req.Tenant, req.ID))
	}
	// Another epoch of the tenant running (here or in another replica)
	// holds the lease. The request waits for it, heart-beating, instead of
	// failing: failed at once, a few requests arriving while a long epoch
	// runs used up their deliveries in seconds and were dead-lettered, and
	// an epoch asked for after a memory was stored never ran. It runs once
	// the lease is free, so it sees everything stored before it was asked.
	deadline := time.Now().Add(maxHeldWait)
	for {
		_, err := c.Epoch(ctx, req.Tenant, req.ID, d.InProgress)
		if !errors.Is(err, lock.ErrHeld) {
			return err
		}
		if time.Now().After(deadline) {
			// Redelivered later, as any transient failure.
			return fmt.Errorf("epoch for tenant %s: waited %s: %w", req.Tenant, maxHeldWait, err)
		}
		_ = d.InProgress()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.stop:
			return fmt.Errorf("epoch for tenant %s: stopping while another epoch runs: %w", req.Tenant, err)
		case <-time.After(heldPoll):
		}
	}
}

// A request finding another epoch of its tenant running polls the lease
// every heldPoll, for at most maxHeldWait (well inside the handler's 10
// minutes) before it is redelivered.
const (
	heldPoll    = 250 * time.Millisecond
	maxHeldWait = 5 * time.Minute
)

// Epoch runs one epoch for a tenant under its lease, unless an epoch with
// the same id already ran. It returns the consolidated event.
func (c *Consolidator) Epoch(ctx context.Context, tenant, id string, progress func() error) (memory.ConsolidatedEvent, error) {
	lease, err := c.locks.Acquire(ctx, "consolidate:"+tenant, c.cfg.LeaseTTL)
	if err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	// The lease is renewed in the background, not only between phases: a
	// phase longer than the lease's ttl (a big tenant, a starved machine)
	// let another delivery take the tenant, and each try, resumed from the
	// start, lost the lease again.
	ctx, stopKeep := lock.Keep(ctx, lease, c.cfg.LeaseTTL)
	defer stopKeep()
	st, rev, err := c.loadState(ctx, tenant)
	if err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	if st.LastID == id {
		c.epochs.WithLabelValues("duplicate").Inc()
		return memory.ConsolidatedEvent{Tenant: tenant, Epoch: id}, nil
	}
	seq, begin := st.Count+1, c.now().UTC()
	if st.Pending != nil {
		seq, begin = st.Pending.Seq, st.Pending.Begin
		c.log.InfoContext(ctx, "resuming an interrupted epoch", "tenant", tenant, "epoch", id, "interrupted", st.Pending.ID, "seq", seq)
	}
	r := newRun(c, tenant, id, seq, begin, st.Starts)
	if err := r.load(ctx); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	if r.queueIn, err = c.loadQueue(ctx, tenant); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	step := func() error {
		if progress != nil {
			_ = progress()
		}
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("epoch of %s: %w", tenant, err)
		}
		return nil
	}
	if err := step(); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	// 003: decay only happens in active cycles; a scheduled epoch over a
	// tenant with no activity since the last one, and no pair waiting,
	// changes nothing.
	if strings.HasPrefix(id, "schedule:") && st.Pending == nil && len(st.Starts) > 0 && !r.activeSince(st.Starts[len(st.Starts)-1]) &&
		depth(r.queueIn) == 0 {
		c.epochs.WithLabelValues("idle").Inc()
		return memory.ConsolidatedEvent{Tenant: tenant, Epoch: id, Memories: r.stats.Memories}, nil
	}
	if st.Pending == nil {
		st.Pending = &pendingEpoch{ID: id, Seq: seq, Begin: begin}
		if rev, err = c.saveState(ctx, tenant, st, rev); err != nil {
			return memory.ConsolidatedEvent{}, err
		}
	}
	if err := r.phases(ctx, step); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	// The queue is saved before the store: a pair this epoch asked about
	// stays in it, marked, until a later epoch sees this one committed; a
	// resumed try asks about it again.
	if c.level() != llm.LevelOff {
		if err := c.saveQueue(ctx, tenant, r.queueOut); err != nil {
			return memory.ConsolidatedEvent{}, err
		}
	}
	// The journal is written before the store: an operation applied is
	// always in the audit log (a crash in between logs it again on retry).
	if c.journal != nil && len(r.ops) > 0 {
		if err := c.journal.Record(ctx, EpochRecord{Tenant: tenant, Epoch: id, Seq: seq, At: begin, Ops: r.ops}); err != nil {
			c.journalFailures.Inc()
			return memory.ConsolidatedEvent{}, fmt.Errorf("write the audit log of the epoch of %s: %w", tenant, err)
		}
	}
	if err := r.commit(ctx); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	if err := c.announce(ctx, r); err != nil {
		// The epoch is written; its changes are in the audit log and its
		// counts in the consolidated event below.
		c.log.WarnContext(ctx, "announce the epoch's changes of standing", "tenant", tenant, "epoch", id, "error", err)
	}
	for _, op := range r.ops {
		c.ops.WithLabelValues(op.Phase, op.Op, strconv.FormatBool(op.Applied)).Inc()
	}
	st.LastID, st.Count, st.Pending = id, seq, nil
	st.Starts = append(st.Starts, begin)
	if len(st.Starts) > keepStarts {
		st.Starts = st.Starts[len(st.Starts)-keepStarts:]
	}
	if _, err := c.saveState(ctx, tenant, st, rev); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	s := r.stats
	ev := memory.ConsolidatedEvent{Tenant: tenant, Epoch: id, Seq: seq, Decayed: s.Decayed, Promoted: s.Promoted, Dropped: s.Deleted,
		Memories: s.Memories + len(r.created) - s.Deleted, Triaged: s.Triaged, Core: s.Core, Rejected: s.Rejected, Demoted: s.Demoted,
		Superseded: s.Superseded, Merged: s.Merged, Distilled: s.Distilled, Audited: s.Audited, Refused: s.Refused,
		Archived: s.Archived, LLMCalls: s.LLMCalls}
	data, _ := json.Marshal(ev)
	if err := c.bus.Publish(ctx, bus.Msg{Subject: bus.ConsolidatedSubject(tenant), ID: "consolidated:" + tenant + ":" + id, Data: data}); err != nil {
		return ev, fmt.Errorf("announce epoch of %s: %w", tenant, err)
	}
	c.epochs.WithLabelValues("ok").Inc()
	c.log.InfoContext(ctx, "epoch done", "tenant", tenant, "epoch", id, "seq", seq, "promoted", s.Promoted, "core", s.Core,
		"superseded", s.Superseded, "deduplicated", s.Deduplicated, "overlaps", s.Overlaps, "queued", s.Queued, "merged", s.Merged, "archived", s.Archived, "deleted", s.Deleted, "rebased", s.Rebased, "llm_calls", s.LLMCalls)
	return ev, nil
}

// phases runs the epoch's phases in 003's order, adapted: hygiene and
// mechanical promotion, supersession by key, merge and reconcile of this
// epoch's changes, distillation, triage, the gate, the audit, decay, then
// retention. step reports progress between phases and stops the epoch
// once its lease is lost (lock.Keep renews it in the background).
func (r *run) phases(ctx context.Context, step func() error) error {
	// 003: decay only in active cycles. An epoch over a tenant nothing
	// happened to since the previous one (a manual epoch on an idle
	// tenant) runs its phases but decays nothing.
	activity := r.last.IsZero() || r.activeSince(r.last)
	r.closeValidity()
	r.hygiene()
	r.promoteBuffer()
	r.supersedeByKey()
	r.supersedeCorrections()
	if err := r.bufferDedup(ctx); err != nil {
		return err
	}
	if r.c.level() != llm.LevelOff {
		if err := r.findPairs(ctx); err != nil {
			return err
		}
	}
	for _, phase := range []func(context.Context){r.pairCalls, r.distill, r.triage, r.gate} {
		if err := step(); err != nil {
			return err
		}
		phase(ctx)
	}
	if r.auditDue() {
		if err := step(); err != nil {
			return err
		}
		r.audit(ctx)
	}
	if err := r.coreOverlap(ctx); err != nil {
		return err
	}
	if activity {
		r.decay()
	}
	r.retention()
	r.transcriptRetention()
	return step()
}

// activeSince reports whether anything happened to the tenant's
// memories since t (the epoch's own writes carry exactly t): a memory no
// epoch has seen yet (a backdated one too), one recalled, or one written
// since.
func (r *run) activeSince(t time.Time) bool {
	for _, m := range r.mems {
		if (m.Epoch == 0 && active(m)) || m.CreatedAt.After(t) || m.LastAccessed.After(t) || m.ValidFrom.After(t) || m.ModifiedAt.After(t) {
			return true
		}
	}
	return false
}

func (c *Consolidator) loadState(ctx context.Context, tenant string) (epochState, uint64, error) {
	var st epochState
	e, err := c.state.Get(ctx, tenant)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return st, 0, nil
	}
	if err != nil {
		return st, 0, fmt.Errorf("read epoch state of %s: %w", tenant, err)
	}
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return st, 0, fmt.Errorf("decode epoch state of %s: %w", tenant, err)
	}
	return st, e.Revision(), nil
}

func (c *Consolidator) saveState(ctx context.Context, tenant string, st epochState, rev uint64) (uint64, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		rev, err = c.state.Create(ctx, tenant, data)
	} else {
		rev, err = c.state.Update(ctx, tenant, data, rev)
	}
	if err != nil {
		return 0, fmt.Errorf("save epoch state of %s: %w", tenant, err)
	}
	return rev, nil
}
