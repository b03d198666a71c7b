package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func TestLoggerAddsTraceID(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, "info")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "op")
	log.InfoContext(ctx, "handled", "tenant", "a")
	span.End()
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["trace_id"] != span.SpanContext().TraceID().String() {
		t.Fatalf("trace_id = %v, want %s", rec["trace_id"], span.SpanContext().TraceID())
	}
	if rec["tenant"] != "a" || rec["msg"] != "handled" {
		t.Fatalf("record = %v", rec)
	}
	buf.Reset()
	log.Debug("hidden")
	if buf.Len() != 0 {
		t.Fatalf("debug logged at info level: %s", buf.String())
	}
}
