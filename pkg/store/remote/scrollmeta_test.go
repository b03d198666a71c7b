package remote

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestScrollMetaLeavesVectorsOut scrolls a store that has no ScrollMeta of
// its own: the server still sends pages without vectors, and the client
// hands out what Scroll does, less the vectors.
func TestScrollMetaLeavesVectorsOut(t *testing.T) {
	_, c, ns := pair(t, WithScrollPageSize(7))
	var mems []memory.Memory
	for i := range 30 {
		mems = append(mems, fullMemory("t", i, 16))
	}
	if err := c.Upsert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	all := store.Filter{IncludeArchived: true, IncludeSuperseded: true}
	var want, got []memory.Memory
	if err := c.Scroll(t.Context(), "t", all, func(m memory.Memory) error {
		if len(m.Vector) != 16 {
			t.Fatalf("scroll returned %s with a %d-dim vector", m.ID, len(m.Vector))
		}
		m.Vector = nil
		want = append(want, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.ScrollMeta(t.Context(), "t", all, func(m memory.Memory) error {
		got = append(got, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(mems) || !reflect.DeepEqual(got, want) {
		t.Fatalf("scroll without vectors returned %d memories, unlike scroll's %d less their vectors", len(got), len(want))
	}

	nc := connect(t, ns)
	for _, tc := range []struct {
		body       string
		hasVectors bool
	}{
		{`{"tenant":"t","filter":{},"limit":5}`, true},
		{`{"tenant":"t","filter":{},"limit":5,"no_vectors":true}`, false},
	} {
		msg, err := nc.Request(DefaultSubjectPrefix+".scroll", []byte(tc.body), DefaultRequestTimeout)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result scrollResult `json:"result"`
		}
		if err := json.Unmarshal(msg.Data, &env); err != nil || len(env.Result.Memories) != 5 {
			t.Fatalf("scroll reply %s: %v", msg.Data, err)
		}
		if has := strings.Contains(string(msg.Data), `"vector"`); has != tc.hasVectors {
			t.Fatalf("request %s: reply carries vectors: %v, want %v", tc.body, has, tc.hasVectors)
		}
	}
}
