package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestOneTracePerEvent checks that a conversation event is one trace from
// the ingest request through the extractor and the embedder.
func TestOneTracePerEvent(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	a := startSingle(t, t.TempDir())
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	if code := postJSON(t, a.Web().URL()+"/v1/events", turnEvent("trace", "t-1", preferenceTurn), nil); code != http.StatusAccepted {
		t.Fatalf("ingest answered %d", code)
	}
	eventually(t, 60*time.Second, "embedder span in the ingest trace", func() error {
		var ingestTrace string
		byName := map[string][]sdktrace.ReadOnlySpan{}
		for _, s := range rec.Ended() {
			byName[s.Name()] = append(byName[s.Name()], s)
			if s.Name() == "POST /v1/events" {
				ingestTrace = s.SpanContext().TraceID().String()
			}
		}
		if ingestTrace == "" {
			return fmt.Errorf("no ingest span yet")
		}
		for _, name := range []string{"handle extractor", "handle embedder"} {
			found := false
			for _, s := range byName[name] {
				if s.SpanContext().TraceID().String() == ingestTrace && s.Parent().IsValid() {
					found = true
				}
			}
			if !found {
				return fmt.Errorf("no %q span in trace %s (spans: %d)", name, ingestTrace, len(rec.Ended()))
			}
		}
		return nil
	})
}
