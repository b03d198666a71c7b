package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	pollWait      = 5 * time.Second // how long one pull waits for a message
	pullRetryBase = 100 * time.Millisecond
	pullRetryMax  = 5 * time.Second
)

// Consumer runs a handler over a durable pull consumer until stopped.
type Consumer struct {
	bus     *Bus
	cfg     ConsumerConfig
	handler Handler
	log     *slog.Logger
	jcfg    jetstream.ConsumerConfig

	mu   sync.Mutex
	cons jetstream.Consumer
	// rebound is cancelled when the consumer is bound again after a
	// JetStream restart, ending pulls waiting on the old binding.
	rebound       context.Context
	cancelRebound context.CancelFunc

	// pullCtx ends when pulling must stop (Stop, or Consume's ctx ending);
	// handlerCtx only when Stop gives up waiting for handlers.
	pullCtx       context.Context
	stopPulling   context.CancelFunc
	handlerCtx    context.Context
	abortHandlers context.CancelFunc
	workers       sync.WaitGroup
	done          chan struct{}
	stopOnce      sync.Once

	stats counters
}

// Stats counts what a consumer did since it started.
type Stats struct {
	Handled      uint64 // handler calls
	Acked        uint64
	Naked        uint64 // retried later
	DeadLettered uint64 // copied to the DLQ and terminated
	Errors       uint64 // failed settles and pulls (logged)
	InFlight     int64  // handlers running now
}

type counters struct {
	handled, acked, naked, deadLettered, errors atomic.Uint64
	inFlight                                    atomic.Int64
}

// Consume creates (or updates) the durable consumer cc.Durable on cc.Stream
// with explicit acks from the start of the stream, and runs h over its
// messages with cc.Concurrency workers until Stop, or until ctx ends: pass
// a ctx that lives as long as the consumer should. ctx's values reach
// handlers; its cancellation stops pulling but does not cut short handlers
// already running.
func (b *Bus) Consume(ctx context.Context, cc ConsumerConfig, h Handler, log *slog.Logger) (*Consumer, error) {
	cc = cc.withDefaults()
	if err := cc.validate(); err != nil {
		return nil, fmt.Errorf("consume %s: %w", cc.Durable, err)
	}
	if h == nil {
		return nil, fmt.Errorf("consume %s: nil handler", cc.Durable)
	}
	if log == nil {
		log = b.log
	}
	c := &Consumer{
		bus:     b,
		cfg:     cc,
		handler: h,
		log:     log.With("consumer", cc.Durable),
		jcfg:    jetstreamConsumerConfig(cc),
		done:    make(chan struct{}),
	}
	cons, err := b.createConsumer(ctx, cc.Stream, c.jcfg, c.log)
	if err != nil {
		return nil, fmt.Errorf("consume %s: create consumer on %s: %w", cc.Durable, cc.Stream, err)
	}
	c.cons = cons
	c.rebound, c.cancelRebound = context.WithCancel(context.Background())
	c.pullCtx, c.stopPulling = context.WithCancel(ctx)
	c.handlerCtx, c.abortHandlers = context.WithCancel(context.WithoutCancel(ctx))
	b.track(c)
	c.workers.Add(cc.Concurrency)
	for range cc.Concurrency {
		go c.work()
	}
	go func() {
		c.workers.Wait()
		b.untrack(c)
		if ctx.Err() != nil {
			// Not Stop: the ctx given to Consume ended, which stops pulling.
			c.log.Info("consumer stopped: its context ended", "error", context.Cause(ctx))
		}
		close(c.done)
	}()
	c.log.Info("consumer started", "stream", cc.Stream, "concurrency", cc.Concurrency)
	return c, nil
}

func jetstreamConsumerConfig(cc ConsumerConfig) jetstream.ConsumerConfig {
	jc := jetstream.ConsumerConfig{
		Durable:       cc.Durable,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cc.AckWait,
		MaxDeliver:    cc.MaxDeliver + deadLetterSlack,
		MaxAckPending: cc.MaxAckPending,
		ReplayPolicy:  jetstream.ReplayInstantPolicy,
	}
	if cc.StartTime != nil {
		jc.DeliverPolicy, jc.OptStartTime = jetstream.DeliverByStartTimePolicy, cc.StartTime
	}
	switch len(cc.FilterSubjects) {
	case 0:
	case 1:
		jc.FilterSubject = cc.FilterSubjects[0]
	default:
		jc.FilterSubjects = cc.FilterSubjects
	}
	return jc
}

// Stop stops pulling, waits for running handlers to finish and settle
// their messages, and returns. If ctx ends first, running handlers' contexts
// are cancelled and Stop returns ctx's error; their messages are redelivered.
func (c *Consumer) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() { c.stopPulling() })
	select {
	case <-c.done:
		c.log.Info("consumer stopped")
		return nil
	case <-ctx.Done():
		c.abortHandlers()
		return fmt.Errorf("stop consumer %s: %w", c.cfg.Durable, ctx.Err())
	}
}

// Done is closed when the consumer has stopped and its handlers returned.
func (c *Consumer) Done() <-chan struct{} { return c.done }

// Durable is the consumer's name.
func (c *Consumer) Durable() string { return c.cfg.Durable }

// Stats is a snapshot of the consumer's counters.
func (c *Consumer) Stats() Stats {
	return Stats{
		Handled:      c.stats.handled.Load(),
		Acked:        c.stats.acked.Load(),
		Naked:        c.stats.naked.Load(),
		DeadLettered: c.stats.deadLettered.Load(),
		Errors:       c.stats.errors.Load(),
		InFlight:     c.stats.inFlight.Load(),
	}
}

// work pulls one message at a time, only when it is free to handle it, so
// no message waits in a client buffer while its AckWait runs out and Stop
// leaves nothing behind but the handlers in flight.
func (c *Consumer) work() {
	defer c.workers.Done()
	retry := pullRetryBase
	for c.pullCtx.Err() == nil {
		err := c.pullOne()
		if err == nil {
			retry = pullRetryBase
			continue
		}
		if c.pullCtx.Err() != nil {
			return
		}
		c.stats.errors.Add(1)
		c.log.Warn("pull failed", "stream", c.cfg.Stream, "error", err, "retry_in", retry)
		if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
			c.recreate()
		}
		select {
		case <-c.pullCtx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(2*retry, pullRetryMax)
	}
}

func (c *Consumer) pullOne() error {
	ctx, cancel := context.WithTimeout(c.pullCtx, pollWait)
	defer cancel()
	cons, rebound := c.binding()
	defer context.AfterFunc(rebound, cancel)()
	batch, err := cons.Fetch(1, jetstream.FetchContext(ctx))
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	for msg := range batch.Messages() {
		if c.pullCtx.Err() != nil {
			// Arrived after Stop: hand it back for immediate redelivery.
			_ = msg.Nak()
			continue
		}
		c.handle(msg)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("fetch: %w", err)
	}
	return nil
}

// binding is the consumer to pull from and a context that ends when it
// is replaced.
func (c *Consumer) binding() (jetstream.Consumer, context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cons, c.rebound
}

// recreate brings back a consumer deleted under us (server state lost,
// an operator's mistake); its position restarts from the stream's start,
// which idempotent handlers tolerate.
func (c *Consumer) recreate() {
	ctx, cancel := context.WithTimeout(c.pullCtx, apiTimeout)
	defer cancel()
	cons, err := c.bus.js.CreateOrUpdateConsumer(ctx, c.cfg.Stream, c.jcfg)
	if err != nil {
		c.log.Warn("recreate consumer", "stream", c.cfg.Stream, "error", err)
		return
	}
	c.mu.Lock()
	c.cons = cons
	c.mu.Unlock()
	c.log.Warn("consumer recreated", "stream", c.cfg.Stream)
}

// consumerCreateWait bounds how long Consume waits for JetStream to answer
// the creation of its consumer (a cluster electing a leader, a node
// restarting): a worker started then waits for its backend instead of
// exiting.
const consumerCreateWait = 2 * time.Minute

// createConsumer creates or updates the durable consumer, asking again
// while JetStream does not answer (a timeout, no responders) for up to
// consumerCreateWait or until ctx ends; any other error is returned at
// once.
func (b *Bus) createConsumer(ctx context.Context, stream string, cfg jetstream.ConsumerConfig, log *slog.Logger) (jetstream.Consumer, error) {
	deadline := time.Now().Add(consumerCreateWait)
	wait := 200 * time.Millisecond
	for {
		cons, err := b.js.CreateOrUpdateConsumer(ctx, stream, cfg)
		if err == nil || ctx.Err() != nil || !unanswered(err) || time.Now().After(deadline) {
			return cons, err
		}
		log.Warn("jetstream did not answer the consumer's creation; asking again", "stream", stream, "retry_in", wait, "error", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// unanswered reports an error of a JetStream request nobody answered in
// time: worth asking again, unlike a refusal.
func unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoHeartbeat)
}
