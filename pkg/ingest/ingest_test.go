package ingest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openBus(t *testing.T, maxBytes int64) *bus.Bus {
	t.Helper()
	cfg := bus.Config{DataDir: t.TempDir(), MaxBytes: maxBytes}
	if maxBytes > 0 {
		cfg.MaxMsgSize = int32(maxBytes / 2)
	}
	b, err := bus.Open(context.Background(), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func newIngest(t *testing.T, b *bus.Bus) *Ingest {
	t.Helper()
	in, err := New(Config{MaxBatch: 5, PublishTimeout: 5 * time.Second, RetryAfter: 3 * time.Second, MaxFutureSkew: 2 * time.Hour}, b, prometheus.NewRegistry(), quiet,
		func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func post(h http.Handler, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/events", strings.NewReader(body)))
	return rec
}

func streamMsgs(t *testing.T, b *bus.Bus) uint64 {
	t.Helper()
	s, err := b.JetStream().Stream(context.Background(), bus.StreamConv)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

func TestIngestAcceptsAndDeduplicates(t *testing.T) {
	b := openBus(t, 0)
	in := newIngest(t, b)
	one := `{"id":"e1","tenant":"acme","session_id":"s","content":"I prefer tabs"}`
	batch := `{"events":[{"id":"e2","tenant":"acme","session_id":"s","content":"a"},{"id":"e3","tenant":"globex","session_id":"s","content":"b"}]}`
	for _, body := range []string{one, batch, one} {
		if rec := post(in, body); rec.Code != http.StatusAccepted {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	if n := streamMsgs(t, b); n != 3 {
		t.Fatalf("stream holds %d events, want 3 (the resend deduplicated)", n)
	}
	// The stored event is the normalised one, on the tenant's subject.
	stream, err := b.JetStream().Stream(context.Background(), bus.StreamConv)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := stream.GetLastMsgForSubject(context.Background(), bus.ConvSubject("globex"))
	if err != nil {
		t.Fatal(err)
	}
	var e memory.Event
	if err := json.Unmarshal(msg.Data, &e); err != nil {
		t.Fatal(err)
	}
	if e.ID != "e3" || e.Namespace != "default" || e.Role != "user" || e.TS.IsZero() {
		t.Fatalf("stored event %+v", e)
	}
	if msg.Header.Get(jetstream.MsgIDHeader) != "globex:e3" {
		t.Fatalf("msg id %q", msg.Header.Get(jetstream.MsgIDHeader))
	}
}

func TestIngestRejectsWholeBatchNamingField(t *testing.T) {
	b := openBus(t, 0)
	in := newIngest(t, b)
	long := strings.Repeat("x", memory.MaxContentChars+1)
	ev := `{"id":"a","session_id":"s","content":"x"}`
	tests := []struct{ name, body, field string }{
		{"not json", `{"id":`, "body"},
		{"array", `[1]`, "body"},
		{"unknown field", `{"id":"a","session_id":"s","content":"x","bogus":1}`, "bogus"},
		{"unknown field in batch", `{"events":[` + ev + `,{"id":"b","session_id":"s","content":"x","bogus":1}]}`, "events[1].bogus"},
		{"two concatenated objects", ev + `{"id":"b","session_id":"s","content":"y"}`, "body"},
		{"ndjson as one body", ev + "\n" + `{"id":"b","session_id":"s","content":"y"}` + "\n", "body"},
		{"trailing garbage", ev + ` xyz`, "body"},
		{"duplicate key", `{"id":"a","session_id":"s","content":"x","content":"y"}`, "content"},
		{"duplicate escaped key", `{"id":"a","session_id":"s","content":"x","\u0063ontent":"y"}`, "content"},
		{"duplicate key in batch", `{"events":[` + ev + `,{"id":"b","id":"c","session_id":"s","content":"x"}]}`, "events[1].id"},
		{"wrong type", `{"id":"a","session_id":"s","content":7}`, "content"},
		{"ts before 1970", `{"id":"a","session_id":"s","content":"x","ts":"1969-12-31T23:59:59Z"}`, "ts"},
		{"ts year 1", `{"id":"a","session_id":"s","content":"x","ts":"0001-01-01T00:00:01Z"}`, "ts"},
		{"ts beyond the skew", `{"id":"a","session_id":"s","content":"x","ts":"2026-01-01T02:00:01Z"}`, "ts"},
		{"ts year 9999", `{"id":"a","session_id":"s","content":"x","ts":"9999-01-01T00:00:00Z"}`, "ts"},
		{"ts in batch beyond the skew", `{"events":[` + ev + `,{"id":"b","session_id":"s","content":"x","ts":"2026-01-01T02:00:01Z"}]}`, "events[1].ts"},
		{"message ts beyond the skew", `{"id":"a","type":"compaction","session_id":"s","messages":[{"content":"x","ts":"2030-01-01T00:00:00Z"}]}`, "messages[0].ts"},
		{"content too long", `{"events":[{"id":"a","session_id":"s","content":"ok"},{"id":"b","session_id":"s","content":"` + long + `"}]}`, "events[1].content"},
		{"duplicate ids in batch", `{"events":[{"id":"a","session_id":"s","content":"x"},{"id":"a","session_id":"s","content":"y"}]}`, "events[1].id"},
		{"too many events", `{"events":[` + strings.Repeat(`{"id":"a","session_id":"s","content":"x"},`, 5) + `{"id":"z","session_id":"s","content":"x"}]}`, "events"},
		{"empty batch", `{"events":[]}`, "events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(in, tt.body)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", rec.Code, rec.Body)
			}
			var body struct{ Error, Field string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Field != tt.field || body.Error == "" {
				t.Fatalf("field %q (error %q), want %q", body.Field, body.Error, tt.field)
			}
		})
	}
	if n := streamMsgs(t, b); n != 0 {
		t.Fatalf("%d events stored from rejected requests", n)
	}
}

func TestIngestQueueFullOrDownIs503(t *testing.T) {
	b := openBus(t, 4096)
	in := newIngest(t, b)
	body := func(id string) string {
		return `{"id":"` + id + `","session_id":"s","content":"` + strings.Repeat("y", 1500) + `"}`
	}
	var rec *httptest.ResponseRecorder
	for i := 0; i < 20; i++ {
		if rec = post(in, body(string(rune('a'+i)))); rec.Code != http.StatusAccepted {
			break
		}
	}
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "3" {
		t.Fatalf("full stream: status %d Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	_ = b.Close()
	if rec = post(in, body("after-close")); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("closed bus: status %d: %s", rec.Code, rec.Body)
	}
}

func TestIngestTimestampWindow(t *testing.T) {
	b := openBus(t, 0)
	in := newIngest(t, b) // now 2026-01-01T00:00:00Z, skew 2h
	for _, ts := range []string{"1970-01-01T00:00:00Z", "2025-06-01T00:00:00Z", "2026-01-01T02:00:00Z"} {
		rec := post(in, `{"id":"`+ts+`","session_id":"s","content":"x","ts":"`+ts+`"}`)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("ts %s: status %d, want 202: %s", ts, rec.Code, rec.Body)
		}
	}
	rec := post(in, `{"id":"late","session_id":"s","content":"x","ts":"2026-01-01T02:00:01Z"}`)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "limit 2026-01-01T02:00:00Z") {
		t.Fatalf("status %d, want 400 naming the limit: %s", rec.Code, rec.Body)
	}
	if n := streamMsgs(t, b); n != 3 {
		t.Fatalf("stream holds %d events, want 3", n)
	}
}
