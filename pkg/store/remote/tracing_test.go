package remote

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/store"
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

func TestTraceCrossesTheWire(t *testing.T) {
	rec := installTracing(t)
	st, c, _ := pair(t)
	inside := make(chan trace.SpanContext, 1)
	st.setHook(func(ctx context.Context, op string) error {
		inside <- trace.SpanContextFromContext(ctx)
		return errors.New("boom")
	})
	ctx, caller := otel.Tracer("test").Start(context.Background(), "recall")
	_, err := c.Count(ctx, "t1", store.Filter{})
	caller.End()
	if err == nil {
		t.Fatal("want the store's error")
	}
	if sc := <-inside; sc.TraceID() != caller.SpanContext().TraceID() {
		t.Fatalf("store ran in trace %s, want the caller's %s", sc.TraceID(), caller.SpanContext().TraceID())
	}
	waitFor(t, "server span ended", func() bool { return len(rec.Ended()) == 3 })
	kinds := map[trace.SpanKind]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		kinds[s.SpanKind()] = s
	}
	client, server := kinds[trace.SpanKindClient], kinds[trace.SpanKindServer]
	if client == nil || server == nil {
		t.Fatalf("want a client and a server span, got %v", rec.Ended())
	}
	if client.Name() != "store count" || client.Parent().SpanID() != caller.SpanContext().SpanID() {
		t.Errorf("client span %q has parent %s, want store count under the caller", client.Name(), client.Parent().SpanID())
	}
	if server.Parent().SpanID() != client.SpanContext().SpanID() {
		t.Errorf("server span's parent is %s, want the client span %s", server.Parent().SpanID(), client.SpanContext().SpanID())
	}
	for _, s := range []sdktrace.ReadOnlySpan{client, server} {
		if s.Status().Code != codes.Error {
			t.Errorf("%s span status = %v, want error", s.SpanKind(), s.Status())
		}
	}
}
