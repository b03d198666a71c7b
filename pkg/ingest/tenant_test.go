package ingest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/auth"
)

func TestDecodeResolvesTenantFromKey(t *testing.T) {
	in := newIngest(t, openBus(t, 0))
	acme := auth.WithPrincipal(context.Background(), auth.Principal{Name: "agent", Tenant: "acme"})
	admin := auth.WithPrincipal(context.Background(), auth.Principal{Name: "ops", Tenant: "ops", Admin: true})
	tests := []struct {
		name      string
		ctx       context.Context
		body      string
		want      []string // tenants of the decoded events
		forbidden string   // substring of the 403 error
	}{
		{"open, none named", context.Background(), `{"id":"e","session_id":"s","content":"x"}`, []string{"default"}, ""},
		{"key, none named", acme, `{"id":"e","session_id":"s","content":"x"}`, []string{"acme"}, ""},
		{"key, own named", acme, `{"events":[{"id":"e1","tenant":"acme","session_id":"s","content":"x"},{"id":"e2","session_id":"s","content":"y"}]}`, []string{"acme", "acme"}, ""},
		{"key, other named", acme, `{"id":"e","tenant":"globex","session_id":"s","content":"x"}`, nil, `may not act for tenant "globex"`},
		{"key, other named in a batch", acme, `{"events":[{"id":"e1","session_id":"s","content":"x"},{"id":"e2","tenant":"globex","session_id":"s","content":"y"}]}`, nil, `events[1].tenant: api key "agent"`},
		{"admin, others named", admin, `{"events":[{"id":"e1","tenant":"globex","session_id":"s","content":"x"},{"id":"e2","session_id":"s","content":"y"}]}`, []string{"globex", "ops"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, err := in.Decode(tt.ctx, []byte(tt.body))
			if tt.forbidden != "" {
				if !errors.Is(err, auth.ErrForbidden) || !strings.Contains(err.Error(), tt.forbidden) {
					t.Fatalf("error = %v, want ErrForbidden containing %q", err, tt.forbidden)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != len(tt.want) {
				t.Fatalf("%d events, want %d", len(events), len(tt.want))
			}
			for i, e := range events {
				if e.Tenant != tt.want[i] {
					t.Fatalf("event %d tenant %q, want %q", i, e.Tenant, tt.want[i])
				}
			}
		})
	}
}

func TestForbiddenBatchPublishesNothing(t *testing.T) {
	b := openBus(t, 0)
	in := newIngest(t, b)
	req := httptest.NewRequest(http.MethodPost, "/v1/events", strings.NewReader(
		`{"events":[{"id":"e1","session_id":"s","content":"x"},{"id":"e2","tenant":"globex","session_id":"s","content":"y"}]}`))
	req = req.WithContext(auth.WithPrincipal(req.Context(), auth.Principal{Name: "agent", Tenant: "acme"}))
	rec := httptest.NewRecorder()
	in.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"code":"forbidden"`) {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if n := streamMsgs(t, b); n != 0 {
		t.Fatalf("stream holds %d events after a refused batch, want 0", n)
	}
}
