package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/strictjson"
	"github.com/recollect-dev/recollect/pkg/web"
)

// fuzzDecode reads body as a request would be read by the handlers; a
// refusal must be a *memory.FieldError naming a field.
func fuzzDecode(t *testing.T, body []byte, v any) bool {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
	err := web.DecodeJSON(httptest.NewRecorder(), r, v)
	if err == nil {
		return true
	}
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field == "" {
		t.Fatalf("error %v (%T) names no field", err, err)
	}
	return false
}

// roundTrip encodes v and decodes it strictly into a fresh value of its
// type, which must encode the same (an empty list and none are the same
// request): what a client library sends back is read the same.
func roundTrip[T any](t *testing.T, v T) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	var back T
	if err := strictjson.Unmarshal(raw, &back); err != nil {
		t.Fatalf("decode of our own encoding refused: %v\n%s", err, raw)
	}
	again, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, raw) {
		t.Fatalf("round trip changed the request:\n got %s\nwant %s", again, raw)
	}
}

// FuzzRecallRequest: POST /v1/recall bodies never panic the decoder or
// Normalize, refusals name a field, and a decoded request round-trips.
// Seeds: testdata/fuzz/FuzzRecallRequest.
func FuzzRecallRequest(f *testing.F) {
	f.Add([]byte(`{"tenant":"acme","query":"where does the user live?","k":5,"filters":{"domains":["general"],"archived":true,"after":"2025-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"key":"editor","expand":false,"rerank":true}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var req recall.Request
		if !fuzzDecode(t, body, &req) {
			return
		}
		roundTrip(t, req)
		if err := req.Normalize(); err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("Normalize error %v (%T) names no field", err, err)
			}
		}
	})
}

// FuzzLearnRequest: POST /v1/memories bodies, decoded and turned into the
// memory event the handler publishes; refusals name a field.
// Seeds: testdata/fuzz/FuzzLearnRequest.
func FuzzLearnRequest(f *testing.F) {
	f.Add([]byte(`{"tenant":"acme","content":"prefers dark mode","type":"preference","key":"theme","tags":["ui"],"importance":0.7}`))
	f.Add([]byte(`{"id":"m1","content":"x","wait":true,"timeout":"5s","scope":{"files":["src/*.go"]}}`))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		var req LearnRequest
		if !fuzzDecode(t, body, &req) {
			return
		}
		roundTrip(t, req)
		in := req.MemoryInput
		e := memory.Event{ID: "fuzz", Type: memory.EventMemory, Tenant: req.Tenant, Namespace: req.Namespace, Subject: req.Subject,
			Channel: req.Channel, SessionID: req.SessionID, Memory: &in}
		if err := e.Normalize(now); err != nil {
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("Normalize error %v (%T) names no field", err, err)
			}
		}
	})
}
