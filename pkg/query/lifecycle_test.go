package query

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

var lifeBase = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// version is a memory created h hours after lifeBase, superseded by
// successor when one is named.
func version(id, content string, h int, successor string, from ...string) memory.Memory {
	m := memory.Memory{ID: id, Content: content, Key: "editor/choice", CreatedAt: lifeBase.Add(time.Duration(h) * time.Hour),
		ValidFrom: lifeBase.Add(time.Duration(h) * time.Hour), DerivedFrom: from, SupersededBy: successor}
	m.ModifiedAt = m.CreatedAt
	if successor != "" {
		inv := m.CreatedAt.Add(24 * time.Hour)
		m.InvalidAt = &inv
	}
	return m
}

func ofSubject(subject string, m memory.Memory) memory.Memory {
	m.Subject = subject
	return m
}

func TestListSuperseded(t *testing.T) {
	h := newHarness(t)
	h.put(t,
		version("a", "edits in vim", 0, "b"),
		version("b", "edits in helix", 1, ""),
		memory.Memory{ID: "c", Content: "old note", Archived: true},
	)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"b"}},
		{"&superseded=true", []string{"a", "b"}},
		{"&archived=true", []string{"b", "c"}},
		{"&archived=true&superseded=true", []string{"a", "b", "c"}},
	} {
		var resp ListResponse
		if code := h.do(t, http.MethodGet, "/v1/memories?tenant=acme"+tc.query, nil, &resp); code != http.StatusOK {
			t.Fatalf("list%s answered %d", tc.query, code)
		}
		var got []string
		for _, m := range resp.Memories {
			got = append(got, m.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("list%s = %v, want %v", tc.query, got, tc.want)
		}
	}
	var s Stats
	if code := h.do(t, http.MethodGet, "/v1/stats?tenant=acme", nil, &s); code != http.StatusOK || s.Memories != 3 || s.Archived != 1 || s.Superseded != 1 {
		t.Fatalf("stats answered %d %+v, want 3 memories, 1 archived, 1 superseded", code, s)
	}
}

func TestHistoryChain(t *testing.T) {
	h := newHarness(t)
	h.put(t,
		// A superseded by B superseded by C, each derived from the one before.
		version("a", "edits in vim", 0, "b"),
		version("b", "edits in emacs", 1, "c", "a"),
		version("c", "edits in helix", 2, ""),
		// X and Y merged into Z, which is older than Y: the chain still puts
		// Z after both.
		version("x", "deploys from main", 5, "z"),
		version("z", "deploys from main after review", 6, "", "x", "y"),
		version("y", "deploys after review", 7, "z"),
		// A distillation whose sources were not superseded, and another
		// tenant's memory naming a chain member.
		version("n1", "note one", 10, ""),
		version("d", "status: done", 11, "", "n1", "gone"),
		memory.Memory{ID: "o", Tenant: "globex", Content: "another tenant", SupersededBy: "c", DerivedFrom: []string{"a"}},
	)
	chain := func(id string) []string {
		t.Helper()
		var got History
		if code := h.do(t, http.MethodGet, "/v1/memories/"+id+"/history?tenant=acme", nil, &got); code != http.StatusOK {
			t.Fatalf("history of %s answered %d", id, code)
		}
		if got.ID != id || got.ChainTruncated {
			t.Fatalf("history of %s: %+v", id, got)
		}
		var ids []string
		for _, v := range got.Chain {
			ids = append(ids, v.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		ids  []string
		want []string
	}{
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{[]string{"x", "y", "z"}, []string{"x", "y", "z"}},
		// The walk goes back along derived_from, not forward: a note does
		// not list the summaries made of it.
		{[]string{"d"}, []string{"n1", "d"}},
		{[]string{"n1"}, []string{"n1"}},
	} {
		for _, id := range tc.ids {
			if got := chain(id); !slices.Equal(got, tc.want) {
				t.Errorf("chain of %s = %v, want %v", id, got, tc.want)
			}
		}
	}

	var got History
	if code := h.do(t, http.MethodGet, "/v1/memories/b/history?tenant=acme", nil, &got); code != http.StatusOK {
		t.Fatalf("history answered %d", code)
	}
	if got.SupersededBy != "c" || !slices.Equal(got.DerivedFrom, []string{"a"}) || got.InvalidAt == nil {
		t.Fatalf("history of b = %+v", got)
	}
	a := got.Chain[0]
	if a.Content != "edits in vim" || a.Key != "editor/choice" || a.SupersededBy != "b" || a.InvalidAt == nil ||
		!a.CreatedAt.Equal(lifeBase) || !a.ValidFrom.Equal(lifeBase) || a.Layer != memory.LayerWorking {
		t.Fatalf("chain entry a = %+v", a)
	}
	if c := got.Chain[2]; c.InvalidAt != nil || c.SupersededBy != "" {
		t.Fatalf("the current version is marked superseded: %+v", c)
	}
}

func TestHistoryChainBound(t *testing.T) {
	h := newHarness(t)
	var mems []memory.Memory
	for i := range MaxChain + 20 {
		next := ""
		if i < MaxChain+19 {
			next = "v" + string(rune('a'+(i+1)/26)) + string(rune('a'+(i+1)%26))
		}
		mems = append(mems, version("v"+string(rune('a'+i/26))+string(rune('a'+i%26)), "version", i, next))
	}
	h.put(t, mems...)
	var got History
	if code := h.do(t, http.MethodGet, "/v1/memories/vaa/history?tenant=acme", nil, &got); code != http.StatusOK {
		t.Fatalf("history answered %d", code)
	}
	if len(got.Chain) != MaxChain || !got.ChainTruncated || got.Chain[0].ID != "vaa" {
		t.Fatalf("chain of %d (truncated %v, first %s), want the first %d versions, truncated",
			len(got.Chain), got.ChainTruncated, got.Chain[0].ID, MaxChain)
	}
}

func TestPurgeSubject(t *testing.T) {
	var q *Query
	h := newHarness(t, func(m *Query) { q = m })
	h.put(t,
		memory.Memory{ID: "a1", Subject: "alice", Content: "alice lives in Lyon"},
		memory.Memory{ID: "a2", Subject: "alice", Content: "alice used vim", Archived: true},
		ofSubject("alice", version("a3", "alice edits in vim", 0, "a4")),
		ofSubject("alice", version("a4", "alice edits in helix", 1, "", "a3")),
		// Derived from alice's memories, whatever their own subject.
		memory.Memory{ID: "m1", Subject: "bob", Content: "bob and alice share an office", DerivedFrom: []string{"a1", "b1"}},
		memory.Memory{ID: "m2", Subject: memory.LoreSubject, Content: "the team lives near Lyon", DerivedFrom: []string{"m1"}},
		// Untouched: bob's own, one derived from bob only, another tenant's alice.
		memory.Memory{ID: "b1", Subject: "bob", Content: "bob works from the office"},
		memory.Memory{ID: "b2", Subject: "bob", Content: "bob commutes by bike", DerivedFrom: []string{"b1"}},
		memory.Memory{ID: "g1", Tenant: "globex", Subject: "alice", Content: "another alice"},
		memory.Memory{ID: "g2", Tenant: "globex", Content: "derived in globex", DerivedFrom: []string{"a1"}},
	)
	sub, err := h.bus.Conn().SubscribeSync(bus.StoredSubject("acme"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.bus.Conn().Flush(); err != nil {
		t.Fatal(err)
	}

	for _, bad := range []string{"subject=", "subject=alice&namespace_prefix=proj"} {
		if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme&"+bad, nil, nil); code != http.StatusBadRequest {
			t.Fatalf("delete ?%s answered %d, want 400", bad, code)
		}
	}
	var resp DeleteResponse
	if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme&subject=alice", nil, &resp); code != http.StatusOK || resp.Deleted != 6 {
		t.Fatalf("purge answered %d %+v, want 200 with 6 deleted", code, resp)
	}
	for _, tt := range []struct {
		tenant, id string
		kept       bool
	}{
		{"acme", "a1", false}, {"acme", "a2", false}, {"acme", "a3", false}, {"acme", "a4", false},
		{"acme", "m1", false}, {"acme", "m2", false},
		{"acme", "b1", true}, {"acme", "b2", true}, {"globex", "g1", true}, {"globex", "g2", true},
	} {
		_, err := h.store.Get(context.Background(), tt.tenant, tt.id)
		if kept := err == nil; kept != tt.kept || err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s/%s after the purge: get error %v, want kept %v", tt.tenant, tt.id, err, tt.kept)
		}
	}
	announced := map[string]bool{}
	for range 6 {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatalf("deletion announcements: %v (have %v)", err, announced)
		}
		announced[string(m.Data)] = true
	}
	if len(announced) != 6 {
		t.Fatalf("announced %d distinct deletions, want 6", len(announced))
	}
	if code := h.do(t, http.MethodDelete, "/v1/memories?tenant=acme&subject=alice", nil, &resp); code != http.StatusOK || resp.Deleted != 0 {
		t.Fatalf("second purge answered %d %+v, want 200 with 0 deleted", code, resp)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(q.deleted)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 1 || len(mfs[0].GetMetric()) != 1 || mfs[0].GetMetric()[0].GetLabel()[0].GetValue() != "subject" ||
		mfs[0].GetMetric()[0].GetCounter().GetValue() != 6 {
		t.Fatalf("recollect_query_deleted_total = %v, want 6 by subject", mfs)
	}
}
