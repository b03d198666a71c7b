package memory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// reencodes checks that v, decoded from a bus message, encodes to bytes
// that decode to a value encoding the same: what a worker republishes is
// what it read.
func reencodes[T any](t *testing.T, v T) {
	t.Helper()
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	var back T
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatalf("decode of our own %T refused: %v\n%s", v, err, first)
	}
	second, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("%T changed on a round trip:\n%s\n%s", v, first, second)
	}
}

// FuzzFactMessage decodes fact-stream messages as the embedder does: no
// panic, and a decoded message round-trips. Seeds:
// testdata/fuzz/FuzzFactMessage.
func FuzzFactMessage(f *testing.F) {
	f.Add([]byte(`{"op":"upsert","tenant":"acme","source_event":"acme:e1","memory":{"id":"m1","content":"likes tea","type":"preference","importance":0.5,"created_at":"2025-01-01T00:00:00+02:00"},"rule":"llm"}`))
	f.Add([]byte(`{"op":"feedback","tenant":"acme","feedback":{"memory_ids":["m1"],"outcome":"helpful"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m memory.FactMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		reencodes(t, m)
	})
}

// FuzzEventMessage decodes conversation-stream messages as the extractor
// does (strictly, then Normalize, since agents may publish directly): no
// panic, refusals are *memory.FieldError naming a field, and a normalised
// event round-trips and normalises to itself. Seeds:
// testdata/fuzz/FuzzEventMessage.
func FuzzEventMessage(f *testing.F) {
	f.Add([]byte(`{"id":"e1","type":"turn","tenant":"acme","session_id":"s","role":"user","content":"I moved to Lisbon","ts":"2025-06-01T12:00:00Z"}`))
	f.Add([]byte(`{"id":"e2","type":"compaction","session_id":"s","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e memory.Event
		err := strictjson.Unmarshal(data, &e)
		if err == nil {
			err = e.Normalize(now)
		}
		if err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("error %v (%T) names no field", err, err)
			}
			return
		}
		reencodes(t, e)
		first, _ := json.Marshal(e)
		if err := e.Normalize(now); err != nil {
			t.Fatalf("a normalised event fails Normalize again: %v", err)
		}
		if second, _ := json.Marshal(e); !bytes.Equal(first, second) {
			t.Fatalf("Normalize is not idempotent:\n%s\n%s", first, second)
		}
	})
}
