package bus

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// installTracing sets the global propagator and an in-memory tracer
// provider for one test, restoring the previous ones afterwards.
func installTracing(t *testing.T) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
		_ = tp.Shutdown(context.Background())
	})
	return rec
}

type seen struct {
	span        trace.SpanContext
	correlation string
}

func TestTraceAndCorrelationPropagate(t *testing.T) {
	rec := installTracing(t)
	b := openTestBus(t, func(c *Config) { c.EmbeddedListen = "127.0.0.1:0" })
	got := make(chan seen, 2)
	c, err := b.Consume(ctxT(t), fastConsumer("traced"), func(ctx context.Context, d *Delivery) error {
		got <- seen{trace.SpanContextFromContext(ctx), CorrelationID(ctx)}
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}

	t.Run("published through the bus", func(t *testing.T) {
		ctx, ingest := otel.Tracer("test").Start(ctxT(t), "ingest")
		ctx = WithCorrelationID(ctx, "corr-42")
		if err := b.Publish(ctx, msgs("acme", 1, "tr")[0]); err != nil {
			t.Fatalf("publish: %v", err)
		}
		ingest.End()
		s := <-got
		if s.correlation != "corr-42" {
			t.Errorf("correlation id in handler = %q, want corr-42", s.correlation)
		}
		if s.span.TraceID() != ingest.SpanContext().TraceID() {
			t.Fatalf("handler trace %s, want the publisher's %s", s.span.TraceID(), ingest.SpanContext().TraceID())
		}
		var publish, handle sdktrace.ReadOnlySpan
		for _, sp := range rec.Started() {
			switch {
			case sp.Name() == "publish recollect.conv" && sp.SpanContext().TraceID() == s.span.TraceID():
				publish = sp
			case sp.SpanContext().SpanID() == s.span.SpanID():
				handle = sp
			}
		}
		if publish == nil || handle == nil {
			t.Fatalf("spans not recorded: publish=%v handle=%v", publish, handle)
		}
		if publish.Parent().SpanID() != ingest.SpanContext().SpanID() || publish.SpanKind() != trace.SpanKindProducer {
			t.Errorf("publish span parent %s kind %s, want child of ingest, producer", publish.Parent().SpanID(), publish.SpanKind())
		}
		if handle.Parent().SpanID() != publish.SpanContext().SpanID() || !handle.Parent().IsRemote() {
			t.Errorf("handle span parent %s, want the remote publish span %s", handle.Parent().SpanID(), publish.SpanContext().SpanID())
		}
		if handle.Name() != "handle traced" || handle.SpanKind() != trace.SpanKindConsumer {
			t.Errorf("handle span %q kind %s", handle.Name(), handle.SpanKind())
		}
		attrs := map[attribute.Key]attribute.Value{}
		for _, kv := range handle.Attributes() {
			attrs[kv.Key] = kv.Value
		}
		if attrs["messaging.destination.name"].AsString() != ConvSubject("acme") ||
			attrs["messaging.nats.stream_sequence"].AsInt64() != 1 ||
			attrs["messaging.nats.delivery_count"].AsInt64() != 1 {
			t.Errorf("handle span attributes: %v", handle.Attributes())
		}
	})

	t.Run("published directly by an agent", func(t *testing.T) {
		nc, err := nats.Connect(b.ClientURL())
		if err != nil {
			t.Fatalf("connect to %q: %v", b.ClientURL(), err)
		}
		defer nc.Close()
		// An agent's own trace, spelled as HTTP clients usually do.
		const agentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		m := &nats.Msg{Subject: ConvSubject("acme"), Data: []byte(`{"id":"direct"}`), Header: nats.Header{
			"Nats-Msg-Id": []string{EventMsgID("acme", "direct")},
			"Traceparent": []string{"00-" + agentTrace + "-00f067aa0ba902b7-01"},
		}}
		if _, err := nc.RequestMsg(m, waitFor); err != nil {
			t.Fatalf("publish directly: %v", err)
		}
		s := <-got
		if s.correlation != EventMsgID("acme", "direct") {
			t.Errorf("correlation id = %q, want the message id", s.correlation)
		}
		if s.span.TraceID().String() != agentTrace {
			t.Errorf("handler trace %s, want the agent's %s", s.span.TraceID(), agentTrace)
		}
	})
	stopConsumer(t, c)
}
