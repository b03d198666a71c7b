package extract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestHandleRefusesMalformedEvents is the NATS door's table: a message an
// agent published straight onto the subject is decoded as strictly as an
// HTTP body, and a bad one is a permanent failure naming the problem (it
// goes to the dead letters, never retried or half-read).
func TestHandleRefusesMalformedEvents(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ev := `{"id":"e1","tenant":"acme","session_id":"s","content":"I prefer tabs"}`
	tests := []struct{ name, data, field, want string }{
		{"two objects", ev + ev, "body", "data after the JSON value"},
		{"ndjson", ev + "\n" + ev + "\n", "body", "data after the JSON value"},
		{"trailing garbage", ev + " xyz", "body", "data after the JSON value"},
		{"duplicate key", `{"id":"e1","id":"e2","session_id":"s","content":"x"}`, "id", "appears twice"},
		{"unknown field", `{"id":"e1","session_id":"s","content":"x","colour":"red"}`, "colour", "not a known field"},
		{"ts before 1970", `{"id":"e1","session_id":"s","content":"x","ts":"1960-01-01T00:00:00Z"}`, "ts", "before 1970"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := h.x.Handle(context.Background(), &bus.Delivery{Subject: bus.ConvSubject("acme"), Data: []byte(tt.data), NumDelivered: 1})
			var fe *memory.FieldError
			if !bus.IsPermanent(err) || !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Reason, tt.want) {
				t.Fatalf("Handle(%s) = %v, want a permanent error on %q containing %q", tt.data, err, tt.field, tt.want)
			}
		})
	}
}
