// Package topiary is the topiary module: it rebuilds a tenant's topic tree
// after memories are stored or consolidated, debounced per tenant and under a
// lease, and saves it where the query service reads it.
package topiary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// Config of the topiary module.
type Config struct {
	Debounce time.Duration
	MaxDelay time.Duration
	LeaseTTL time.Duration
}

// RegisterFlags adds the topiary flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.DurationVar(&c.Debounce, prefix+"topiary-debounce", 5*time.Second, "quiet time after the last stored memory of a tenant before its topic tree is rebuilt")
	fs.DurationVar(&c.MaxDelay, prefix+"topiary-max-delay", time.Minute, "longest a rebuild waits under a steady stream of writes")
	fs.DurationVar(&c.LeaseTTL, prefix+"topiary-lease-ttl", 2*time.Minute, "lease that keeps one rebuild per tenant at a time")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Debounce <= 0:
		return errors.New("topiary-debounce must be positive")
	case c.MaxDelay < c.Debounce:
		return fmt.Errorf("topiary-max-delay (%s) must be at least topiary-debounce (%s)", c.MaxDelay, c.Debounce)
	case c.LeaseTTL < time.Second:
		return errors.New("topiary-lease-ttl must be at least 1s")
	}
	return nil
}

// Bus is what topiary needs of the bus.
type Bus interface {
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
	JetStream() jetstream.JetStream
}

// Topiary is the topiary module.
type Topiary struct {
	cfg      Config
	opts     topics.Options
	store    store.Store
	bus      Bus
	locks    lock.Locker
	log      *slog.Logger
	now      func() time.Time
	trees    *Trees
	consumer *bus.Consumer
	rebuilds *prometheus.CounterVec

	mu      sync.Mutex
	pending map[string]*pending
	stopped bool
}

// pending is a tenant's next rebuild and the handlers waiting for it.
type pending struct {
	first time.Time
	timer *time.Timer
	done  chan struct{}
	err   error
}

// Durable is topiary's consumer name.
const Durable = "topiary"

// New builds the module.
func New(cfg Config, opts topics.Options, st store.Store, b Bus, locks lock.Locker, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Topiary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t := &Topiary{cfg: cfg, opts: opts, store: st, bus: b, locks: locks, log: log, now: now, pending: map[string]*pending{}}
	t.rebuilds = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_topiary_rebuilds_total", Help: "Topic tree rebuilds, by outcome."}, []string{"outcome"})
	if reg != nil {
		reg.MustRegister(t.rebuilds)
	}
	return t, nil
}

// Start opens the tree bucket and attaches the consumer.
func (t *Topiary) Start(ctx context.Context) error {
	trees, err := OpenTrees(ctx, t.bus.JetStream())
	if err != nil {
		return err
	}
	t.trees = trees
	c, err := t.bus.Consume(ctx, bus.ConsumerConfig{
		Durable: Durable, Stream: bus.StreamEvent,
		FilterSubjects: []string{bus.StoredSubject("*"), bus.ConsolidatedSubject("*")},
		// Handlers wait for the debounced rebuild that covers their event,
		// so an event is acknowledged only once the tree includes it.
		Concurrency: 256, MaxAckPending: 4096, MaxDeliver: 10,
		HandlerTimeout: t.cfg.MaxDelay + t.cfg.LeaseTTL, AckWait: t.cfg.MaxDelay + t.cfg.LeaseTTL + 30*time.Second,
	}, t.Handle, t.log)
	if err != nil {
		return fmt.Errorf("consume memory events: %w", err)
	}
	t.consumer = c
	return nil
}

// Stop drains waiting handlers: pending rebuilds run at once.
func (t *Topiary) Stop(ctx context.Context) error {
	t.mu.Lock()
	t.stopped = true
	for _, p := range t.pending {
		p.timer.Reset(0)
	}
	t.mu.Unlock()
	if t.consumer != nil {
		return t.consumer.Stop(ctx)
	}
	return nil
}

// Handle schedules the tenant's rebuild and waits for it.
func (t *Topiary) Handle(ctx context.Context, d *bus.Delivery) error {
	var ev struct {
		Tenant string `json:"tenant"`
	}
	if err := json.Unmarshal(d.Data, &ev); err != nil {
		return bus.Permanent(fmt.Errorf("decode memory event: %w", err))
	}
	if !memory.ValidTenant(ev.Tenant) {
		return bus.Permanent(fmt.Errorf("memory event with invalid tenant %q", ev.Tenant))
	}
	p := t.schedule(ev.Tenant)
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Topiary) schedule(tenant string) *pending {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	p, ok := t.pending[tenant]
	if !ok {
		p = &pending{first: now, done: make(chan struct{})}
		p.timer = time.AfterFunc(t.cfg.Debounce, func() { t.fire(tenant, p) })
		t.pending[tenant] = p
		return p
	}
	if t.stopped {
		return p
	}
	// Debounce: wait for quiet, but never longer than MaxDelay in all.
	wait := min(t.cfg.Debounce, t.cfg.MaxDelay-now.Sub(p.first))
	p.timer.Reset(max(0, wait))
	return p
}

func (t *Topiary) fire(tenant string, p *pending) {
	t.mu.Lock()
	if t.pending[tenant] == p {
		delete(t.pending, tenant)
	}
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.LeaseTTL)
	defer cancel()
	p.err = t.Rebuild(ctx, tenant)
	close(p.done)
}

// Rebuild builds and saves a tenant's topic tree under its lease.
func (t *Topiary) Rebuild(ctx context.Context, tenant string) error {
	lease, err := t.locks.Acquire(ctx, "topiary:"+tenant, t.cfg.LeaseTTL)
	if err != nil {
		t.rebuilds.WithLabelValues("busy").Inc()
		return fmt.Errorf("rebuild topics of %s: %w", tenant, err)
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	var items []topics.Item
	err = t.store.Scroll(ctx, tenant, store.Filter{}, func(m memory.Memory) error {
		items = append(items, topics.Item{ID: m.ID, Vector: m.Vector, Text: m.Content, Domain: m.Domain, Importance: m.Importance})
		return nil
	})
	if err != nil {
		t.rebuilds.WithLabelValues("error").Inc()
		return fmt.Errorf("read memories of %s: %w", tenant, err)
	}
	tree := topics.Build(tenant, items, t.opts, t.now().UTC())
	if err := t.trees.Save(ctx, tree); err != nil {
		t.rebuilds.WithLabelValues("error").Inc()
		return err
	}
	t.rebuilds.WithLabelValues("ok").Inc()
	t.log.InfoContext(ctx, "topic tree rebuilt", "tenant", tenant, "memories", len(items), "topics", len(tree.Roots))
	return nil
}
