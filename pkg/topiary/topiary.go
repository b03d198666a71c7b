// Package topiary is the topiary module: it rebuilds a tenant's topic tree
// after memories are stored or consolidated, debounced per tenant and under a
// lease, names the topics whose members changed through the LLM when one is
// configured, and saves the tree where the query service reads it.
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
	fs.DurationVar(&c.LeaseTTL, prefix+"topiary-lease-ttl", 2*time.Minute, "lease that keeps one rebuild per tenant at a time; a rebuild, LLM naming included, must end within it")
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
	chat     Chatter // nil: topics keep their word names
	trees    *Trees
	consumer *bus.Consumer
	rebuilds *prometheus.CounterVec
	naming   *prometheus.CounterVec

	// afterFunc starts the debounce timers (time.AfterFunc; tests drive
	// them with a fake clock).
	afterFunc func(d time.Duration, f func()) timer

	mu      sync.Mutex
	pending map[string]*pending
	stopped bool
	fires   sync.WaitGroup // pending rebuilds not yet run
	scan    context.CancelFunc
	scanned chan struct{} // closed when the start-up scan is over
}

// Durable is topiary's consumer name.
const Durable = "topiary"

// New builds the module.
func New(cfg Config, opts topics.Options, st store.Store, b Bus, locks lock.Locker, reg prometheus.Registerer, log *slog.Logger, now func() time.Time, options ...Option) (*Topiary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	t := &Topiary{cfg: cfg, opts: opts, store: st, bus: b, locks: locks, log: log, now: now, pending: map[string]*pending{},
		afterFunc: func(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }}
	t.rebuilds = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_topiary_rebuilds_total", Help: "Topic tree rebuilds, by outcome."}, []string{"outcome"})
	t.naming = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_topiary_names_total",
		Help: "Topic names given by rebuilds, by source: llm (named now), kept (an unchanged topic keeps its LLM name), fallback (the LLM failed or answered badly: word name kept)."},
		[]string{"source"})
	if reg != nil {
		reg.MustRegister(t.rebuilds, t.naming)
	}
	for _, o := range options {
		o(t)
	}
	return t, nil
}

// Start opens the tree bucket, attaches the consumer and, in the
// background, rebuilds the tree of every tenant that has memories but no
// tree yet (003: "if no tree, immediately rebuilds").
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
	scanCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t.scan, t.scanned = cancel, make(chan struct{})
	go func() {
		defer close(t.scanned)
		t.rebuildMissing(scanCtx)
	}()
	return nil
}

// Stop ends the start-up scan and drains waiting handlers: pending
// rebuilds run at once.
func (t *Topiary) Stop(ctx context.Context) error {
	if t.scan != nil {
		t.scan()
	}
	t.mu.Lock()
	t.stopped = true
	for _, p := range t.pending {
		p.timer.Reset(0)
	}
	t.mu.Unlock()
	var err error
	if t.consumer != nil {
		err = t.consumer.Stop(ctx)
	}
	drained := make(chan struct{})
	go func() {
		if t.scanned != nil {
			<-t.scanned
		}
		t.fires.Wait()
		close(drained)
	}()
	select {
	case <-drained:
		return err
	case <-ctx.Done():
		return errors.Join(err, fmt.Errorf("drain topic rebuilds: %w", ctx.Err()))
	}
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
	p := t.schedule(ev.Tenant, false)
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
