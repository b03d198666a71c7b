package query

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/topiary"
	"github.com/recollect-dev/recollect/pkg/topics"
)

func TestTopicsDrillDown(t *testing.T) {
	var trees *topiary.Trees
	h := newHarness(t, func(q *Query) {
		var err error
		if trees, err = topiary.OpenTrees(context.Background(), q.pub.(*bus.Bus).JetStream()); err != nil {
			t.Fatal(err)
		}
		q.trees = trees
	})
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	mems := []memory.Memory{
		{ID: "a1", Content: "deploys go through the release pipeline", Importance: 0.9},
		{ID: "a2", Content: "deploys used to be manual", Archived: true},
		{ID: "a3", Content: "deploys run on fridays", SupersededBy: "a1", InvalidAt: &past},
		{ID: "a5", Content: "deploys need a green build"},
		{ID: "a6", Content: "deploys freeze in december", SupersededBy: "a5", InvalidAt: &future},
		{ID: "b1", Content: "invoices carry a currency"},
		{ID: "b2", Content: "invoices are numbered per year"},
	}
	h.put(t, mems...)
	tree := topics.Tree{Tenant: "acme", Built: time.Now().UTC().Truncate(time.Second), Memories: 7, Roots: []*topics.Node{
		{ID: "tall", Name: "Work", Size: 7, MemoryIDs: []string{"a1", "b1", "b2", "a2", "a3", "a4", "a5"}, Children: []*topics.Node{
			{ID: "tdeploy", Name: "Deploys", Size: 6, MemoryIDs: []string{"a1", "a2", "a3", "a4", "a5", "a6"}}, // a4 deleted since
			{ID: "tinvoice", Name: "Invoices", Size: 2, MemoryIDs: []string{"b1", "b2"}},
		}},
	}}
	if err := trees.Save(context.Background(), tree, nil); err != nil {
		t.Fatal(err)
	}
	ids := func(ms []memory.Memory) []string {
		var out []string
		for _, m := range ms {
			if m.Vector != nil || m.Content == "" {
				t.Fatalf("memory %s returned without content or with its vector", m.ID)
			}
			out = append(out, m.ID)
		}
		return out
	}

	t.Run("index", func(t *testing.T) {
		var resp TopicsResponse
		if code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "acme"}, &resp); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if len(resp.Topics) != 1 || resp.Topics[0].ID != "tall" || len(resp.Topics[0].Children) != 2 || resp.Details != nil || resp.Memories != 7 {
			t.Fatalf("index %+v", resp)
		}
	})
	t.Run("drill down", func(t *testing.T) {
		var resp TopicsResponse
		code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "acme", IDs: []string{"tdeploy", "nope", "tinvoice", "tdeploy"}}, &resp)
		if code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if !slices.Equal(resp.Missing, []string{"nope"}) || len(resp.Topics) != 2 || len(resp.Details) != 2 {
			t.Fatalf("answer %+v", resp)
		}
		d := resp.Details["tdeploy"]
		if d.Name != "Deploys" || d.Truncated || !slices.Equal(ids(d.Memories), []string{"a1", "a5"}) {
			t.Fatalf("deploys %+v: want a1 and a5 (archived, superseded and deleted left out)", d)
		}
		if got := ids(resp.Details["tinvoice"].Memories); !slices.Equal(got, []string{"b1", "b2"}) {
			t.Fatalf("invoices %v", got)
		}
	})
	t.Run("limit", func(t *testing.T) {
		var resp TopicsResponse
		if code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "acme", IDs: []string{"tall"}, Limit: 2}, &resp); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if d := resp.Details["tall"]; !d.Truncated || !slices.Equal(ids(d.Memories), []string{"a1", "b1"}) {
			t.Fatalf("limited %+v", d)
		}
		if code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "acme", IDs: []string{"tall"}, Limit: 3}, &resp); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if d := resp.Details["tall"]; !d.Truncated {
			t.Fatalf("three of four valid memories: %+v, want truncated", d)
		}
		if code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "acme", IDs: []string{"tall"}, Limit: 4}, &resp); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if d := resp.Details["tall"]; d.Truncated || len(d.Memories) != 4 {
			t.Fatalf("all four valid memories: %+v", d)
		}
	})
	t.Run("no tree", func(t *testing.T) {
		var resp TopicsResponse
		if code := h.do(t, http.MethodPost, "/v1/topics", TopicsRequest{Tenant: "other", IDs: []string{"tall"}}, &resp); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if len(resp.Topics) != 0 || !slices.Equal(resp.Missing, []string{"tall"}) {
			t.Fatalf("answer %+v", resp)
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		many := strings.Split(strings.Repeat("t,", 101), ",")[:101]
		for _, req := range []TopicsRequest{{Tenant: "acme", IDs: many}, {Tenant: "acme", Limit: -1}, {Tenant: "acme", Limit: maxTopicLimit + 1}, {Tenant: "a b"}} {
			if code := h.do(t, http.MethodPost, "/v1/topics", req, nil); code != http.StatusBadRequest {
				t.Errorf("%+v: status %d, want 400", req.Limit, code)
			}
		}
	})
}
