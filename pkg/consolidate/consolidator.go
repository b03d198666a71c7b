package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
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
	d := DefaultRules()
	fs.DurationVar(&c.Interval, prefix+"consolidate-interval", 30*time.Minute, "how often every active tenant gets an epoch (0 = only on request)")
	fs.DurationVar(&c.LeaseTTL, prefix+"consolidate-lease-ttl", time.Minute, "lease that keeps one epoch per tenant at a time; renewed while the epoch runs")
	fs.Float64Var(&c.Rules.DecayEpisodic, prefix+"decay-episodic", d.DecayEpisodic, "importance episodic memories lose per epoch")
	fs.Float64Var(&c.Rules.DecaySemantic, prefix+"decay-semantic", d.DecaySemantic, "importance semantic memories lose per epoch")
	fs.Float64Var(&c.Rules.DecayProcedural, prefix+"decay-procedural", d.DecayProcedural, "importance procedural memories lose per epoch")
	fs.Float64Var(&c.Rules.DropThreshold, prefix+"decay-drop-threshold", d.DropThreshold, "buffer memories below this importance are evicted")
	fs.Float64Var(&c.Rules.BufferThreshold, prefix+"buffer-promote-threshold", d.BufferThreshold, "reinforcement score (access + 2.5 × repetition) promoting buffer to working")
	fs.IntVar(&c.Rules.KindPromoteAge, prefix+"buffer-kind-promote-epochs", d.KindPromoteAge, "epochs after which procedural and lesson memories leave the buffer")
	fs.IntVar(&c.Rules.BufferCap, prefix+"buffer-cap", d.BufferCap, "most buffer memories per tenant; the lowest-weight are evicted beyond it")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Interval < 0:
		return errors.New("consolidate-interval must not be negative")
	case c.LeaseTTL < time.Second:
		return fmt.Errorf("consolidate-lease-ttl must be at least 1s (got %s)", c.LeaseTTL)
	case c.Rules.DecayEpisodic < 0 || c.Rules.DecaySemantic < 0 || c.Rules.DecayProcedural < 0:
		return errors.New("decay rates must not be negative")
	case c.Rules.BufferCap < 0:
		return errors.New("buffer-cap must not be negative")
	}
	return nil
}

// Bus is what the consolidator needs of the bus.
type Bus interface {
	Publish(ctx context.Context, m bus.Msg) error
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
	JetStream() jetstream.JetStream
}

// Consolidator is the consolidator module.
type Consolidator struct {
	cfg      Config
	store    store.Store
	bus      Bus
	locks    lock.Locker
	log      *slog.Logger
	now      func() time.Time
	state    jetstream.KeyValue
	consumer *bus.Consumer
	stop     chan struct{}
	wg       sync.WaitGroup
	epochs   *prometheus.CounterVec
}

// Durable is the consolidator's consumer name.
const Durable = "consolidator"

// StateBucket keeps each tenant's epoch history.
const StateBucket = "recollect_epochs"

// New builds the module.
func New(cfg Config, st store.Store, b Bus, locks lock.Locker, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Consolidator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Consolidator{cfg: cfg, store: st, bus: b, locks: locks, log: log, now: now, stop: make(chan struct{})}
	c.epochs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_consolidator_epochs_total", Help: "Epochs, by outcome."}, []string{"outcome"})
	if reg != nil {
		reg.MustRegister(c.epochs)
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
	cons, err := c.bus.Consume(ctx, bus.ConsumerConfig{
		Durable: Durable, Stream: bus.StreamEvent, FilterSubjects: []string{bus.ConsolidateSubject("*")},
		MaxDeliver: 5, HandlerTimeout: 10 * time.Minute, AckWait: 11 * time.Minute, Concurrency: 2,
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
	close(c.stop)
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

// state is a tenant's epoch history.
type epochState struct {
	LastID string      `json:"last_id"`
	Starts []time.Time `json:"starts"`
	Count  int64       `json:"count"`
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
	_, err := c.Epoch(ctx, req.Tenant, req.ID, d.InProgress)
	if errors.Is(err, lock.ErrHeld) {
		// Another epoch for the tenant is running; this request will
		// come back once it is done.
		return fmt.Errorf("epoch for tenant %s: %w", req.Tenant, err)
	}
	return err
}

// Epoch runs one epoch for a tenant under its lease, unless an epoch with
// the same id already ran. It returns the consolidated event.
func (c *Consolidator) Epoch(ctx context.Context, tenant, id string, progress func() error) (memory.ConsolidatedEvent, error) {
	lease, err := c.locks.Acquire(ctx, "consolidate:"+tenant, c.cfg.LeaseTTL)
	if err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	st, rev, err := c.loadState(ctx, tenant)
	if err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	if st.LastID == id {
		c.epochs.WithLabelValues("duplicate").Inc()
		return memory.ConsolidatedEvent{Tenant: tenant, Epoch: id}, nil
	}
	begin := c.now().UTC()
	var mems []memory.Memory
	if err := c.store.Scroll(ctx, tenant, store.Filter{}, func(m memory.Memory) error {
		mems = append(mems, m)
		return nil
	}); err != nil {
		return memory.ConsolidatedEvent{}, fmt.Errorf("read memories of %s: %w", tenant, err)
	}
	if progress != nil {
		_ = progress()
	}
	// 003: decay only happens in active cycles; a scheduled epoch over a
	// tenant with no activity since the last one changes nothing.
	if strings.HasPrefix(id, "schedule:") && len(st.Starts) > 0 && !activeSince(mems, st.Starts[len(st.Starts)-1]) {
		c.epochs.WithLabelValues("idle").Inc()
		return memory.ConsolidatedEvent{Tenant: tenant, Epoch: id, Memories: len(mems)}, nil
	}
	if err := lease.Renew(ctx, c.cfg.LeaseTTL); err != nil {
		return memory.ConsolidatedEvent{}, fmt.Errorf("renew epoch lease of %s: %w", tenant, err)
	}
	plan := c.cfg.Rules.PlanEpoch(mems, st.Starts, begin)
	if len(plan.Update) > 0 {
		if err := c.store.UpdatePayload(ctx, tenant, plan.Update); err != nil {
			return memory.ConsolidatedEvent{}, fmt.Errorf("write epoch of %s: %w", tenant, err)
		}
	}
	if len(plan.Delete) > 0 {
		if err := c.store.Delete(ctx, tenant, plan.Delete...); err != nil {
			return memory.ConsolidatedEvent{}, fmt.Errorf("evict buffer memories of %s: %w", tenant, err)
		}
	}
	st.LastID = id
	st.Count++
	st.Starts = append(st.Starts, begin)
	if len(st.Starts) > keepStarts {
		st.Starts = st.Starts[len(st.Starts)-keepStarts:]
	}
	if err := c.saveState(ctx, tenant, st, rev); err != nil {
		return memory.ConsolidatedEvent{}, err
	}
	ev := memory.ConsolidatedEvent{Tenant: tenant, Epoch: id, Decayed: plan.Decayed, Promoted: plan.Promoted,
		Dropped: len(plan.Delete), Memories: len(mems) - len(plan.Delete)}
	data, _ := json.Marshal(ev)
	if err := c.bus.Publish(ctx, bus.Msg{Subject: bus.ConsolidatedSubject(tenant), ID: "consolidated:" + tenant + ":" + id, Data: data}); err != nil {
		return ev, fmt.Errorf("announce epoch of %s: %w", tenant, err)
	}
	c.epochs.WithLabelValues("ok").Inc()
	c.log.InfoContext(ctx, "epoch done", "tenant", tenant, "epoch", id, "decayed", ev.Decayed, "promoted", ev.Promoted, "dropped", ev.Dropped)
	return ev, nil
}

func activeSince(mems []memory.Memory, t time.Time) bool {
	for _, m := range mems {
		if m.CreatedAt.After(t) || m.LastAccessed.After(t) || (m.ModifiedAt.After(t) && !m.ModifiedAt.Equal(t)) {
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

func (c *Consolidator) saveState(ctx context.Context, tenant string, st epochState, rev uint64) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if rev == 0 {
		_, err = c.state.Create(ctx, tenant, data)
	} else {
		_, err = c.state.Update(ctx, tenant, data, rev)
	}
	if err != nil {
		return fmt.Errorf("save epoch state of %s: %w", tenant, err)
	}
	return nil
}
