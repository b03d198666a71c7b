package topiary

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestRebuildKeepsTopicIDs: a rebuild after a memory joins a topic keeps
// that topic's id (issue 20).
func TestRebuildKeepsTopicIDs(t *testing.T) {
	e := newEnv(t)
	m := e.module(t, testConfig())
	ctx := context.Background()
	var texts []string
	for i := range 12 {
		texts = append(texts, fmt.Sprintf("deploy pipeline release step %d", i), fmt.Sprintf("coffee machine kitchen note %d", i))
	}
	e.put(t, "acme", 0, texts...)
	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	first := load(t, m, "acme")
	ids := e.put(t, "acme", len(texts), "deploy pipeline release step extra")
	if err := m.Rebuild(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	second := load(t, m, "acme")
	var holder string
	for _, l := range second.Leaves() {
		if slices.Contains(l.MemoryIDs, ids[0]) {
			holder = l.ID
		}
	}
	if holder == "" {
		t.Fatal("no topic holds the new memory")
	}
	if _, ok := first.Find(holder); !ok {
		t.Fatalf("the topic that gained a memory has a new id %s; first tree %v", holder, nodeNames(first.Tree))
	}
}
