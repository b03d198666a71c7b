package bus

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const settleTimeout = 5 * time.Second

// handle runs the handler on one message and settles it: ack, delayed
// redelivery, or dead letter.
func (c *Consumer) handle(msg jetstream.Msg) {
	start := time.Now()
	c.stats.inFlight.Add(1)
	defer c.stats.inFlight.Add(-1)

	d := newDelivery(msg)
	ctx := otel.GetTextMapPropagator().Extract(c.handlerCtx, headerCarrier(d.Header))
	corr := headerGet(d.Header, HeaderCorrelationID)
	if corr == "" {
		corr = d.MsgID // direct publishes carry no correlation id; the msg id is the next best
	}
	if corr != "" {
		ctx = WithCorrelationID(ctx, corr)
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, "handle "+c.cfg.Durable,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", d.Subject),
			attribute.String("messaging.consumer.group.name", c.cfg.Durable),
			attribute.String("messaging.message.id", d.MsgID),
			attribute.String("messaging.nats.stream", d.Stream),
			attribute.Int64("messaging.nats.stream_sequence", int64(d.StreamSeq)),
			attribute.Int64("messaging.nats.delivery_count", int64(d.NumDelivered)),
		))
	defer span.End()

	var err error
	if d.NumDelivered > uint64(c.cfg.MaxDeliver) {
		// Delivered again after its last allowed attempt: its handler
		// crashed the process or its dead-lettering failed. Do not run it.
		err = &noOutcomeError{fmt.Errorf("delivered %d times, more than max deliver %d, without an outcome", d.NumDelivered, c.cfg.MaxDeliver)}
	} else {
		c.stats.handled.Add(1)
		err = c.call(ctx, d)
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	outcome := c.settle(ctx, d, err)
	span.SetAttributes(attribute.String("recollect.bus.outcome", string(outcome)))
	if c.cfg.OnOutcome != nil {
		c.cfg.OnOutcome(outcome, time.Since(start))
	}
}

// call runs the handler under HandlerTimeout; a panic becomes a permanent
// error, since running it again would panic again.
func (c *Consumer) call(ctx context.Context, d *Delivery) (err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.HandlerTimeout)
	defer cancel()
	if c.cfg.Heartbeat > 0 {
		defer c.heartbeat(ctx, d)()
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.ErrorContext(ctx, "handler panicked", "subject", d.Subject, "panic", r, "stack", string(debug.Stack()))
			err = Permanent(&panicError{fmt.Errorf("handler panic: %v", r)})
		}
	}()
	return c.handler(ctx, d)
}

// heartbeat tells the server every Heartbeat that d is still being
// handled, until the returned stop is called.
func (c *Consumer) heartbeat(ctx context.Context, d *Delivery) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(c.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := d.InProgress(); err != nil {
					c.log.WarnContext(ctx, "in-progress heartbeat failed", "subject", d.Subject, "error", err)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// settle maps the handler's result to the message's fate.
func (c *Consumer) settle(ctx context.Context, d *Delivery, err error) Outcome {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	switch {
	case err == nil:
		// DoubleAck waits for the server to confirm, so "acked" means acked.
		if aerr := d.msg.DoubleAck(sctx); aerr != nil {
			c.stats.errors.Add(1)
			c.log.WarnContext(ctx, "ack failed; message will be redelivered", "subject", d.Subject, "error", aerr)
		}
		c.stats.acked.Add(1)
		c.log.DebugContext(ctx, "message handled", "subject", d.Subject, "delivery", d.NumDelivered)
		return OutcomeAck

	case !IsPermanent(err) && d.NumDelivered < uint64(c.cfg.MaxDeliver):
		delay := c.cfg.Backoff(d.NumDelivered)
		if c.handlerCtx.Err() != nil {
			delay = 0 // Stop gave up on us: let another instance take it now
		}
		c.nak(ctx, d, delay)
		c.log.WarnContext(ctx, "handler failed; will retry", "subject", d.Subject, "delivery", d.NumDelivered, "retry_in", delay, "error", err)
		return OutcomeNak
	}

	reason := err.Error()
	if !IsPermanent(err) && d.NumDelivered == uint64(c.cfg.MaxDeliver) {
		reason = fmt.Sprintf("max deliver %d reached: %s", c.cfg.MaxDeliver, reason)
	}
	if derr := c.deadLetter(sctx, d, reason); derr != nil {
		// Keep the message: it comes back (past MaxDeliver) and dead-lettering
		// is tried again then.
		c.stats.errors.Add(1)
		c.nak(ctx, d, c.cfg.Backoff(d.NumDelivered))
		c.log.ErrorContext(ctx, "dead letter failed; will retry", "subject", d.Subject, "delivery", d.NumDelivered, "error", errors.Join(err, derr))
		return OutcomeNak
	}
	if terr := d.msg.TermWithReason(truncate(reason, maxTermReason)); terr != nil {
		c.stats.errors.Add(1)
		c.log.WarnContext(ctx, "term failed; message will be redelivered and dead-lettered again", "subject", d.Subject, "error", terr)
	}
	c.stats.deadLettered.Add(1)
	if c.cfg.OnDeadLetter != nil {
		c.cfg.OnDeadLetter(deadLetterReason(err))
	}
	c.log.ErrorContext(ctx, "message dead-lettered", "subject", d.Subject, "delivery", d.NumDelivered, "dlq", DLQSubject(c.cfg.Durable), "error", err)
	return OutcomeDeadLetter
}

func (c *Consumer) nak(ctx context.Context, d *Delivery, delay time.Duration) {
	c.stats.naked.Add(1)
	if err := d.msg.NakWithDelay(delay); err != nil {
		c.stats.errors.Add(1)
		c.log.WarnContext(ctx, "nak failed; message will be redelivered after ack wait", "subject", d.Subject, "error", err)
	}
}

func newDelivery(msg jetstream.Msg) *Delivery {
	d := &Delivery{Subject: msg.Subject(), Data: msg.Data(), Header: msg.Headers(), msg: msg}
	if d.Header != nil {
		d.MsgID = d.Header.Get(headerNatsMsgID)
	}
	if meta, err := msg.Metadata(); err == nil {
		d.NumDelivered = meta.NumDelivered
		d.Stream = meta.Stream
		d.StreamSeq = meta.Sequence.Stream
		d.Timestamp = meta.Timestamp
	}
	return d
}

// panicError and noOutcomeError mark the two dead-letter causes that are
// not the handler's own verdict.
type panicError struct{ err error }

func (e *panicError) Error() string { return e.err.Error() }
func (e *panicError) Unwrap() error { return e.err }

type noOutcomeError struct{ err error }

func (e *noOutcomeError) Error() string { return e.err.Error() }
func (e *noOutcomeError) Unwrap() error { return e.err }

// deadLetterReason classifies the error that sent a message to the DLQ.
func deadLetterReason(err error) DeadLetterReason {
	var p *panicError
	var n *noOutcomeError
	switch {
	case errors.As(err, &n):
		return ReasonNoOutcome
	case errors.As(err, &p):
		return ReasonPanic
	case IsPermanent(err):
		return ReasonPermanent
	}
	return ReasonMaxDeliver
}
