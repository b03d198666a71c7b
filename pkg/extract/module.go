// Package extract is the extractor module. It consumes conversation
// events and publishes facts per domain for the embedder:
//
//   - every turn goes through zero-cost rule capture at once (004);
//   - with an LLM, each session's turns are buffered durably and extracted
//     per domain, in parallel, 5 s after the session's last turn (001),
//     one extraction per session at a time (a lease);
//   - a compaction extracts every compacted message once per cycle and
//     indexes them as session-transcript chunks; a session end extracts
//     the whole conversation (000);
//   - style observations are reinforced, and a personality directive is
//     synthesised from the strongest (001);
//   - every fact, whatever produced it, passes the grounding, injection
//     and secret filters (002).
package extract

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/extract/rules"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Bus is what the extractor needs of the bus.
type Bus interface {
	PublishBatch(ctx context.Context, ms []bus.Msg) error
	Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error)
	JetStream() jetstream.JetStream
}

// Extractor is the extractor module.
type Extractor struct {
	cfg      Config
	bus      Bus
	rules    *rules.Capturer
	filter   *filter.Filter // facts: at most --filter-max-content-chars
	long     *filter.Filter // explicit memories, transcript chunks, directives: up to memory.MaxContentChars
	domains  *domains.Registry
	chat     Chatter // nil: rule capture only
	locks    lock.Locker
	log      *slog.Logger
	now      func() time.Time
	m        *metrics
	instance string // tells this process's session records from other replicas'
	tick     time.Duration

	sessions kvState[session]
	styles   kvState[styles]
	sched    *scheduler
	consumer *bus.Consumer
	stopBg   context.CancelFunc // ends the watch and the schedule loop
	stopJobs context.CancelFunc // ends running extractions (when Stop runs out of time)
	bg       sync.WaitGroup
}

// defaultTick is the schedule's resolution: a session is extracted at most
// this long after it is due.
const defaultTick = 100 * time.Millisecond

// New builds the module.
func New(cfg Config, b Bus, reg prometheus.Registerer, log *slog.Logger, now func() time.Time, opts ...Option) (*Extractor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	x := &Extractor{
		cfg:     cfg,
		bus:     b,
		rules:   rules.New(),
		filter:  filter.New(filter.WithConfig(cfg.Filter)),
		long:    filter.New(filter.WithConfig(cfg.Filter), filter.WithMaxContentChars(memory.MaxContentChars)),
		domains: domains.Builtin(),
		log:     log,
		now:     now,
		m:       newMetrics(reg),
		tick:    defaultTick,
	}
	for _, o := range opts {
		o(x)
	}
	if x.locks == nil {
		x.locks = memlock.New(memlock.WithClock(now))
	}
	if x.instance == "" {
		var id [8]byte
		_, _ = rand.Read(id[:])
		x.instance = hex.EncodeToString(id[:])
	}
	x.sched = newScheduler(now, cfg.SessionConcurrency, x.runSession, func(n int) { x.m.pending.Set(float64(n)) })
	return x, nil
}

// Durable is the extractor's consumer name.
const Durable = "extractor"

// llmOn reports whether facts are extracted by the LLM too.
func (x *Extractor) llmOn() bool { return x.chat != nil }

// Start opens the state buckets and starts the schedule (with an LLM),
// then attaches the durable consumer.
func (x *Extractor) Start(ctx context.Context) error {
	bgCtx, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	jobs, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	x.stopBg, x.stopJobs = stopBg, stopJobs
	if x.llmOn() {
		if err := x.openState(ctx); err != nil {
			stopBg()
			stopJobs()
			return err
		}
		watch, err := x.sessions.kv.Watch(bgCtx, sessionPrefix+">")
		if err != nil {
			stopBg()
			stopJobs()
			return fmt.Errorf("watch session buffers: %w", err)
		}
		x.bg.Add(1)
		go func() {
			defer x.bg.Done()
			x.watch(bgCtx, watch)
		}()
		x.bg.Add(1)
		go func() {
			defer x.bg.Done()
			x.sweep(bgCtx)
		}()
		if x.tick > 0 {
			x.bg.Add(1)
			go func() {
				defer x.bg.Done()
				x.sched.loop(bgCtx, jobs, x.tick)
			}()
		}
	}
	c, err := x.bus.Consume(ctx, bus.ConsumerConfig{
		Durable:        Durable,
		Stream:         bus.StreamConv,
		MaxDeliver:     x.cfg.MaxDeliver,
		HandlerTimeout: x.cfg.HandlerTimeout,
		AckWait:        x.cfg.HandlerTimeout + 5*time.Second,
		Concurrency:    x.cfg.Concurrency,
	}, x.Handle, x.log)
	if err != nil {
		stopBg()
		x.bg.Wait()
		stopJobs()
		return fmt.Errorf("consume conversations: %w", err)
	}
	x.consumer = c
	x.log.Info("extractor started", "llm", x.llmOn(), "domains", len(x.domains.IDs()))
	return nil
}

func (x *Extractor) openState(ctx context.Context) error {
	js := x.bus.JetStream()
	keys, err := openKeyring(ctx, js, x.now)
	if err != nil {
		return err
	}
	kv, err := openBucket(ctx, js, SessionBucket, "recollect extractor: session buffers awaiting LLM extraction, compaction markers", x.cfg.SessionTTL)
	if err != nil {
		return err
	}
	x.sessions = kvState[session]{kv: kv, keys: keys}
	skv, err := openBucket(ctx, js, StyleBucket, "recollect extractor: style observations per subject", 0)
	if err != nil {
		return err
	}
	x.styles = kvState[styles]{kv: skv, keys: keys}
	return nil
}

// Stop drains in-flight events, stops the schedule and waits for running
// extractions; if ctx ends first they are cancelled, and their sessions
// stay pending for the next start.
func (x *Extractor) Stop(ctx context.Context) error {
	var errs []error
	if x.consumer != nil {
		errs = append(errs, x.consumer.Stop(ctx))
	}
	if x.stopBg != nil {
		x.stopBg()
		x.bg.Wait()
		if err := x.sched.wait(ctx); err != nil {
			x.stopJobs()
			errs = append(errs, fmt.Errorf("wait for session extractions: %w", err))
		}
		x.stopJobs()
	}
	return errors.Join(errs...)
}

// watch feeds the schedule from the session bucket: its current entries
// first (sessions left pending by a crash or a stopped replica), then
// every change any replica makes.
func (x *Extractor) watch(ctx context.Context, w jetstream.KeyWatcher) {
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e == nil {
				continue // end of the initial entries
			}
			if e.Operation() != jetstream.KeyValuePut {
				x.sched.forget(e.Key())
				continue
			}
			s, err := x.sessions.decode(ctx, e.Key(), e.Value())
			if errors.Is(err, errNoKey) {
				x.sched.forget(e.Key()) // erased
				continue
			}
			if err != nil {
				x.log.Warn("unreadable session buffer", "key", e.Key(), "error", err)
				continue
			}
			x.schedule(e.Key(), e.Revision(), &s)
		}
	}
}

// schedule tells the schedule what a session's state says.
func (x *Extractor) schedule(key string, rev uint64, s *session) {
	due, pending := s.due(x.cfg.Debounce, x.cfg.FailoverDelay, x.cfg.MaxPendingTurns, x.instance)
	x.sched.set(key, rev, pending, due)
}
