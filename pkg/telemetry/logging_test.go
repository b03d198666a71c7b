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

func TestLogFormatChoice(t *testing.T) {
	for _, tt := range []struct {
		format   string
		terminal bool
		wantJSON bool
	}{
		{"auto", true, false},
		{"auto", false, true},
		{"", false, true},
		{"text", false, false},
		{"text", true, false},
		{"json", true, true},
		{"json", false, true},
	} {
		var buf bytes.Buffer
		log, err := NewFormatLogger(&buf, "info", tt.format, tt.terminal)
		if err != nil {
			t.Fatalf("%q terminal=%v: %v", tt.format, tt.terminal, err)
		}
		log.Info("ready", "http", "http://127.0.0.1:7700")
		isJSON := json.Valid(buf.Bytes())
		if isJSON != tt.wantJSON {
			t.Errorf("format %q terminal=%v wrote %q, want JSON=%v", tt.format, tt.terminal, buf.String(), tt.wantJSON)
		}
		if !tt.wantJSON && !bytes.Contains(buf.Bytes(), []byte("msg=ready http=http://127.0.0.1:7700")) {
			t.Errorf("text record = %q", buf.String())
		}
	}
	if _, err := NewFormatLogger(&bytes.Buffer{}, "info", "yaml", true); err == nil || err.Error() != `log-format must be auto, text or json (got "yaml")` {
		t.Fatalf("bad format error = %v", err)
	}
}
