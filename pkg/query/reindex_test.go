package query

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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

func TestReindexStatusAfterRequest(t *testing.T) {
	var statuses *embedder.ReindexStatuses
	var b *bus.Bus
	h := newHarness(t, func(q *Query) {
		b = q.pub.(*bus.Bus)
		s, err := embedder.OpenReindexStatuses(context.Background(), b.JetStream(), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		statuses = s
		q.SetReindexStatuses(s)
	})
	resp0, err := http.Get(h.url + "/v1/reindex?tenant=acme")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp0.Body)
	resp0.Body.Close()
	if resp0.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "no reindex") {
		t.Fatalf("state before any request: %d %s, want 404 saying no reindex was requested", resp0.StatusCode, body)
	}
	ctx := context.Background()
	// An earlier request's run finished: the new request must not read as
	// done.
	if err := statuses.Queue(ctx, "acme", "manual:old"); err != nil {
		t.Fatal(err)
	}
	var resp ReindexResponse
	if code := h.do(t, http.MethodPost, "/v1/reindex", ReindexRequest{Tenant: "acme"}, &resp); code != http.StatusAccepted {
		t.Fatalf("status %d, want 202", code)
	}
	var st ReindexStatus
	if code := h.do(t, http.MethodGet, "/v1/reindex?tenant=acme", nil, &st); code != http.StatusOK {
		t.Fatalf("status read: %d", code)
	}
	if st.ID != resp.Reindex || st.State != embedder.ReindexQueued || st.Tenant != "acme" || st.UpdatedAt.IsZero() {
		t.Fatalf("state right after the request %+v, want %s queued", st, resp.Reindex)
	}
	if code := h.do(t, http.MethodGet, "/v1/reindex?tenant=other", nil, nil); code != http.StatusNotFound {
		t.Fatalf("another tenant's state: %d, want 404", code)
	}
	if code := h.do(t, http.MethodGet, "/v1/reindex?tenant=not+a+tenant", nil, nil); code != http.StatusBadRequest {
		t.Fatalf("bad tenant: %d, want 400", code)
	}
}
