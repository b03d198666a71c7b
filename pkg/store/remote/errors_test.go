package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestErrorsSurviveTheWire makes the served store fail every call with a
// given error and checks what the client can still tell about it.
func TestErrorsSurviveTheWire(t *testing.T) {
	field := &memory.FieldError{Field: "content", Reason: "is longer than 8192 characters (9000)"}
	internal := errors.New("disk on fire")
	tests := []struct {
		name     string
		err      error
		is       []error // errors.Is must hold for each
		isNot    []error // and must not for these
		field    *memory.FieldError
		contains string
	}{
		{name: "not found", err: fmt.Errorf("get x in tenant t: %w", store.ErrNotFound),
			is: []error{store.ErrNotFound}, isNot: []error{memory.ErrInvalid, ErrUnavailable}, contains: "get x in tenant t"},
		{name: "field error", err: fmt.Errorf("upsert memory 3 (m-3): %w", field),
			is: []error{memory.ErrInvalid}, isNot: []error{store.ErrNotFound}, field: field, contains: "upsert memory 3 (m-3): content is longer"},
		{name: "plain invalid", err: fmt.Errorf("vector is all zeros: %w", memory.ErrInvalid),
			is: []error{memory.ErrInvalid}, contains: "vector is all zeros"},
		{name: "closed", err: store.ErrClosed, is: []error{store.ErrClosed}},
		{name: "server deadline", err: fmt.Errorf("search: %w", context.DeadlineExceeded),
			is: []error{context.DeadlineExceeded}, isNot: []error{ErrUnavailable}},
		{name: "server canceled", err: context.Canceled, is: []error{context.Canceled}},
		{name: "internal", err: fmt.Errorf("write log: %w", internal),
			isNot: []error{internal, store.ErrNotFound, memory.ErrInvalid, store.ErrClosed, ErrUnavailable}, contains: "write log: disk on fire"},
	}
	st, c, _ := pair(t)
	ctx := context.Background()
	calls := map[string]func() error{
		opUpsert: func() error { return c.Upsert(ctx, fullMemories("t", 1, 4)) },
		opGet:    func() error { _, err := c.Get(ctx, "t", "x"); return err },
		opDelete: func() error { return c.Delete(ctx, "t", "x") },
		opSearch: func() error {
			_, err := c.Search(ctx, store.Query{Tenant: "t", Vector: []float32{1}, K: 1})
			return err
		},
		opSearchText: func() error {
			_, err := c.SearchText(ctx, store.TextQuery{Tenant: "t", Text: "anything", K: 1})
			return err
		},
		opScroll: func() error {
			return c.Scroll(ctx, "t", store.Filter{}, func(memory.Memory) error { return nil })
		},
		opCount:   func() error { _, err := c.Count(ctx, "t", store.Filter{}); return err },
		opTenants: func() error { _, err := c.Tenants(ctx); return err },
	}
	for _, tt := range tests {
		st.setHook(func(context.Context, string) error { return tt.err })
		for op, call := range calls {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				err := call()
				if err == nil {
					t.Fatalf("want an error")
				}
				for _, target := range tt.is {
					if !errors.Is(err, target) {
						t.Errorf("errors.Is(%v, %v) = false", err, target)
					}
				}
				for _, target := range tt.isNot {
					if errors.Is(err, target) {
						t.Errorf("errors.Is(%v, %v) = true", err, target)
					}
				}
				if tt.field != nil {
					var fe *memory.FieldError
					if !errors.As(err, &fe) || *fe != *tt.field {
						t.Errorf("errors.As FieldError = %+v, want %+v", fe, tt.field)
					}
				}
				if !strings.Contains(err.Error(), tt.contains) || !strings.HasPrefix(err.Error(), "remote store "+op+": ") {
					t.Errorf("message %q: want prefix %q and %q in it", err, "remote store "+op+": ", tt.contains)
				}
			})
		}
	}
}

// TestRequestErrors sends requests the server cannot take.
func TestRequestErrors(t *testing.T) {
	ns := startNATS(t)
	serve(t, ns, newMemStore())
	nc := connect(t, ns)
	tests := []struct {
		name, subject, body, code string
	}{
		{"unknown op", DefaultSubjectPrefix + ".compact", `{}`, codeUnsupported},
		{"bad json", DefaultSubjectPrefix + ".get", `{"tenant":`, codeBadRequest},
		{"bad vector", DefaultSubjectPrefix + ".search", `{"tenant":"t","vector":"!!","k":1}`, codeBadRequest},
		{"scroll limit", DefaultSubjectPrefix + ".scroll", `{"tenant":"t","limit":0}`, codeBadRequest},
		{"scroll limit too big", DefaultSubjectPrefix + ".scroll", `{"tenant":"t","limit":100000}`, codeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := nc.Request(tt.subject, []byte(tt.body), DefaultRequestTimeout)
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			var env envelope
			if err := jsonUnmarshal(msg.Data, &env); err != nil {
				t.Fatalf("decode reply %s: %v", msg.Data, err)
			}
			if env.Code != tt.code || env.Error == "" {
				t.Fatalf("reply %s: want code %q with a message", msg.Data, tt.code)
			}
		})
	}
}

// TestHandTypedRequest checks the wire format is usable from `nats req`:
// vectors may be plain JSON arrays.
func TestHandTypedRequest(t *testing.T) {
	st, c, ns := pair(t)
	ctx := context.Background()
	m := fullMemory("t", 1, 3)
	m.Vector = []float32{1, 0, 0}
	if err := c.Upsert(ctx, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	nc := connect(t, ns)
	msg, err := nc.Request(DefaultSubjectPrefix+".search", []byte(`{"tenant":"t","vector":[1,0,0],"k":3}`), DefaultRequestTimeout)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	var res searchResult
	env := envelope{Result: &res}
	if err := jsonUnmarshal(msg.Data, &env); err != nil || env.Code != "" {
		t.Fatalf("reply %s: %v", msg.Data, err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Memory.ID != m.ID || res.Hits[0].Score != 1 {
		t.Fatalf("hits = %+v, want %s with score 1", res.Hits, m.ID)
	}
	if st.count(opSearch) != 1 {
		t.Fatalf("store saw %d searches, want 1", st.count(opSearch))
	}
}
