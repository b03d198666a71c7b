package bus

import (
	"context"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const tracerName = "recollect/bus"

// Msg is a message to publish. ID becomes the Nats-Msg-Id: JetStream stores
// a message once per ID within the duplicate window, so retries are safe.
type Msg struct {
	Subject string
	ID      string
	Data    []byte
	Header  nats.Header
}

// Publish stores m and waits for JetStream's acknowledgement. A duplicate
// (an ID already stored) is success: JetStream answers it with a normal
// PubAck marked Duplicate. The trace context and correlation id
// of ctx travel in the headers. Errors wrap ErrUnavailable when the bus
// cannot take the message now, ErrTooLarge when it never will.
func (b *Bus) Publish(ctx context.Context, m Msg) error {
	ctx, span := startPublishSpan(ctx, "publish "+subjectFamily(m.Subject),
		attribute.String("messaging.destination.name", m.Subject),
		attribute.String("messaging.message.id", m.ID))
	defer span.End()
	if err := b.diskGate(m.Subject); err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return err
	}
	ctx, cancel := b.publishContext(ctx)
	defer cancel()
	_, err := b.js.PublishMsg(ctx, b.natsMsg(ctx, m))
	if err != nil {
		err = fmt.Errorf("publish %s: %w", m.Subject, classify(err))
	}
	if err = b.explain(err, m.Subject); err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// PublishBatch publishes every message without waiting in between, then
// waits for all acknowledgements and returns the first error. Resending
// the whole batch after an error is safe: IDs deduplicate.
func (b *Bus) PublishBatch(ctx context.Context, ms []Msg) error {
	if len(ms) == 0 {
		return nil
	}
	ctx, span := startPublishSpan(ctx, "publish batch",
		attribute.Int("messaging.batch.message_count", len(ms)))
	defer span.End()
	if err := b.diskGate(ms[0].Subject); err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return err
	}
	ctx, cancel := b.publishContext(ctx)
	defer cancel()
	futures := make([]jetstream.PubAckFuture, 0, len(ms))
	var first error
	for _, m := range ms {
		f, err := b.js.PublishMsgAsync(b.natsMsg(ctx, m))
		if err != nil {
			first = fmt.Errorf("publish %s: %w", m.Subject, classify(err))
			break
		}
		futures = append(futures, f)
	}
	// Wait for every future sent, even after an error, so none is left
	// pending against the connection's async limit.
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if first == nil {
				first = fmt.Errorf("publish %s: %w", f.Msg().Subject, classify(err))
			}
		case <-ctx.Done():
			if first == nil {
				first = fmt.Errorf("publish batch of %d: %w", len(ms), classify(ctx.Err()))
			}
		}
	}
	var subjects []string
	if first != nil || b.diskEver.Load() { // the disk bookkeeping needs them
		subjects = make([]string, len(ms))
		for i, m := range ms {
			subjects[i] = m.Subject
		}
	}
	if first = b.explain(first, subjects...); first != nil {
		span.RecordError(first)
		span.SetStatus(codes.Error, first.Error())
	}
	return first
}

// natsMsg builds the wire message: a copy of m's headers plus the message
// id, correlation id and trace context.
func (b *Bus) natsMsg(ctx context.Context, m Msg) *nats.Msg {
	h := make(nats.Header, len(m.Header)+3)
	for k, vs := range m.Header {
		h[k] = append([]string(nil), vs...)
	}
	if m.ID != "" {
		h.Set(headerNatsMsgID, m.ID)
	}
	if id := CorrelationID(ctx); id != "" && headerGet(h, HeaderCorrelationID) == "" {
		h.Set(HeaderCorrelationID, id)
	}
	otel.GetTextMapPropagator().Inject(ctx, headerCarrier(h))
	return &nats.Msg{Subject: m.Subject, Data: m.Data, Header: h}
}

// publishContext bounds the wait for acks when the caller set no deadline.
func (b *Bus) publishContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, b.cfg.PublishTimeout)
}

func startPublishSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	attrs = append(attrs, attribute.String("messaging.system", "nats"), attribute.String("messaging.operation.type", "send"))
	return otel.Tracer(tracerName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(attrs...))
}

// subjectFamily keeps span names low-cardinality: recollect.conv.acme →
// recollect.conv.
func subjectFamily(subject string) string {
	if i := strings.LastIndexByte(subject, '.'); i > 0 {
		return subject[:i]
	}
	return subject
}
