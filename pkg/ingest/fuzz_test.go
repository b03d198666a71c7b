package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// FuzzDecode feeds POST /v1/events bodies to the decoder: it never panics,
// a refused body is a *memory.FieldError naming a field, and an accepted
// event survives the trip through the conversation stream (encoded by
// EventMsg, decoded strictly and normalised by the extractor) unchanged.
// Seeds: testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"e1","type":"turn","tenant":"acme","session_id":"s","role":"user","content":"I live in Lisbon"}`))
	f.Add([]byte(`{"events":[{"id":"a","type":"memory","memory":{"content":"likes tea","type":"preference","key":"drink"}},{"id":"b","type":"session_end","session_id":"s"}]}`))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in, err := New(Config{MaxBatch: 5, PublishTimeout: time.Second, RetryAfter: time.Second, MaxFutureSkew: 2 * time.Hour}, nil, prometheus.NewRegistry(), quiet,
		func() time.Time { return now })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		events, err := in.Decode(context.Background(), body)
		if err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v (%T) names no field", err, err)
			}
			return
		}
		if len(events) == 0 {
			t.Fatal("accepted a body with no event")
		}
		for k := range events {
			msg, err := EventMsg(&events[k])
			if err != nil {
				t.Fatalf("encode accepted event %d: %v", k, err)
			}
			var back memory.Event
			if err := strictjson.Unmarshal(msg.Data, &back); err != nil {
				t.Fatalf("the extractor refuses accepted event %d: %v\n%s", k, err, msg.Data)
			}
			if err := back.Normalize(now); err != nil {
				t.Fatalf("accepted event %d is invalid after the bus: %v\n%s", k, err, msg.Data)
			}
			// Compared encoded: an empty list and none are the same event.
			again, err := json.Marshal(&back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, msg.Data) {
				t.Fatalf("event %d changed on the bus:\n got %s\nwant %s", k, again, msg.Data)
			}
		}
	})
}
