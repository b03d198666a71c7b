package query

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embedder"
)

func TestReindexRequestIsQueued(t *testing.T) {
	h := newHarness(t)
	var resp ReindexResponse
	if code := h.do(t, http.MethodPost, "/v1/reindex", ReindexRequest{Tenant: "acme"}, &resp); code != http.StatusAccepted {
		t.Fatalf("status %d, want 202", code)
	}
	if resp.Tenant != "acme" || !strings.HasPrefix(resp.Reindex, "manual:") {
		t.Fatalf("answer %+v", resp)
	}
	ctx := context.Background()
	stream, err := h.bus.JetStream().Stream(ctx, bus.StreamEvent)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := stream.GetLastMsgForSubject(ctx, bus.ReindexSubject("acme"))
	if err != nil {
		t.Fatalf("no reindex request on the bus: %v", err)
	}
	var req embedder.ReindexRequest
	if err := json.Unmarshal(msg.Data, &req); err != nil || req.Tenant != "acme" || req.ID != resp.Reindex {
		t.Fatalf("queued request %s (%v), want tenant acme id %s", msg.Data, err, resp.Reindex)
	}
	if code := h.do(t, http.MethodPost, "/v1/reindex", map[string]any{"tenant": "not a tenant"}, nil); code != http.StatusBadRequest {
		t.Fatalf("bad tenant: status %d, want 400", code)
	}
}
