package topics

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestKeepIDsAcrossRebuilds: a topic that gains and loses a few memories
// keeps its id through KeepIDs (issue 20: every rebuild changed the ids of
// changed topics, and `recollect topics <id>` then found nothing); a new
// topic gets an id of its own, and ids stay unique.
func TestKeepIDsAcrossRebuilds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base, _ := synth(rng, 64, []int{20, 30, 15, 25}, 0.5, "s")
	before := Build("acme", base, DefaultOptions(), built)

	// Group 0 gains two memories and loses one; an unrelated group arrives.
	grown := slices.Clone(base[1:])
	centre := meanVector(base[:20])
	grown = append(grown, Item{ID: "s00-new1", Vector: around(rng, centre, 0.2)}, Item{ID: "s00-new2", Vector: around(rng, centre, 0.2)})
	extra, _ := synth(rng, 64, []int{18}, 0.5, "x")
	grown = append(grown, extra...)

	plain := Build("acme", grown, DefaultOptions(), built.Add(time.Hour))
	after := Build("acme", grown, DefaultOptions(), built.Add(time.Hour))
	after.KeepIDs(before)

	changedLeaf := func(tree Tree) *Node {
		for _, l := range tree.Leaves() {
			if slices.Contains(l.MemoryIDs, "s00-new1") {
				return l
			}
		}
		t.Fatalf("no leaf holds the new memory:\n%s", dump(tree))
		return nil
	}
	var old *Node
	for _, l := range before.Leaves() {
		if slices.Contains(l.MemoryIDs, base[1].ID) {
			old = l
		}
	}
	if old == nil {
		t.Fatal("no leaf holds group 0")
	}
	if changedLeaf(plain).ID == old.ID {
		t.Fatal("the test needs a topic whose derived id changes; it did not")
	}
	if got := changedLeaf(after); got.ID != old.ID {
		t.Fatalf("group 0's topic is %s after the rebuild, want its old id %s", got.ID, old.ID)
	}
	for _, l := range before.Leaves() {
		if _, ok := after.Find(l.ID); !ok {
			t.Errorf("topic %s lost its id", l.ID)
		}
	}
	seen := map[string]bool{}
	walk(after, func(n *Node, _ int) {
		if seen[n.ID] {
			t.Errorf("id %s used twice", n.ID)
		}
		seen[n.ID] = true
	})
	for _, l := range after.Leaves() {
		if slices.Contains(l.MemoryIDs, extra[0].ID) {
			if _, ok := before.Find(l.ID); ok {
				t.Errorf("the new topic took an old id %s", l.ID)
			}
		}
	}
	// Nothing in common: no id is kept.
	other, _ := synth(rng, 64, []int{20, 20}, 0.5, "o")
	fresh := Build("acme", other, DefaultOptions(), built)
	want := fresh.Leaves()[0].ID
	fresh.KeepIDs(before)
	if fresh.Leaves()[0].ID != want {
		t.Error("a tree with no memory in common took an old id")
	}
}
