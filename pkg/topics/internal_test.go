package topics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func spaceOf(items []Item) *space { return newSpace(items) }

func members(s *space, ids ...string) []int {
	var out []int
	for i, it := range s.items {
		if slices.Contains(ids, it.ID) {
			out = append(out, i)
		}
	}
	return out
}

func TestAverageLinkage(t *testing.T) {
	// two tight pairs far apart, and a fifth point near the first pair
	vs := [][]float32{
		{1, 0, 0}, {0.99, 0.141, 0}, {0, 0, 1}, {0, 0.141, 0.99}, {0.9, 0.436, 0},
	}
	d := averageLinkage(vs)
	if len(d.sim) != len(vs)-1 {
		t.Fatalf("%d merges, want %d", len(d.sim), len(vs)-1)
	}
	for k := 1; k < len(d.sim); k++ {
		// every merge is no more alike than the merges beneath it
		for _, child := range []int{d.left[k], d.right[k]} {
			if !d.isLeaf(child) && d.sim[child-d.n] < d.sim[k] {
				t.Fatalf("merge %d (%.3f) above a less alike merge %d (%.3f)", k, d.sim[k], child-d.n, d.sim[child-d.n])
			}
		}
	}
	parts := d.cut(d.root(), 0.5)
	var groups [][]int
	for _, p := range parts {
		l := d.leaves(p)
		slices.Sort(l)
		groups = append(groups, l)
	}
	slices.SortFunc(groups, func(a, b []int) int { return a[0] - b[0] })
	if want := [][]int{{0, 1, 4}, {2, 3}}; !slices.EqualFunc(groups, want, slices.Equal) {
		t.Fatalf("cut at 0.5 = %v, want %v", groups, want)
	}
	if got := d.split([]int{d.root()}, 3); len(got) != 3 {
		t.Fatalf("split into 3 gave %d parts", len(got))
	}
	if got := d.split([]int{d.root()}, 99); len(got) != len(vs) {
		t.Fatalf("split into 99 gave %d parts, want every point alone", len(got))
	}
	if one := averageLinkage(vs[:1]); one.root() != 0 || !one.isLeaf(one.root()) {
		t.Fatal("a single point is its own root")
	}
}

func TestReassignOutliers(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	items, _ := synth(rng, 64, []int{10, 10}, 0.3, "g")
	s := spaceOf(items)
	a := members(s, "g00-0000", "g00-0001", "g00-0002", "g00-0003", "g00-0004", "g00-0005", "g00-0006", "g00-0007", "g00-0008", "g00-0009", "g01-0000")
	var b []int
	for i := range s.items {
		if !slices.Contains(a, i) {
			b = append(b, i)
		}
	}
	o := DefaultOptions()
	leaves := reassignOutliers(s, []*cluster{newCluster(s, a), newCluster(s, b)}, o)
	for _, l := range leaves {
		prefix := s.items[l.members[0]].ID[:3]
		for _, i := range l.members {
			if !strings.HasPrefix(s.items[i].ID, prefix) {
				t.Fatalf("%s still in the leaf of %s", s.items[i].ID, prefix)
			}
		}
	}
	if len(leaves) != 2 {
		t.Fatalf("%d leaves, want the intruder moved, not left alone", len(leaves))
	}
}

func TestMergeSimilar(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	items, _ := synth(rng, 64, []int{8, 8}, 0.2, "m")
	s := spaceOf(items)
	o := DefaultOptions()
	halves := []*cluster{
		newCluster(s, members(s, "m00-0000", "m00-0001", "m00-0002", "m00-0003")),
		newCluster(s, members(s, "m00-0004", "m00-0005", "m00-0006", "m00-0007")),
		newCluster(s, members(s, "m01-0000", "m01-0001", "m01-0002", "m01-0003", "m01-0004", "m01-0005", "m01-0006", "m01-0007")),
	}
	got := mergeSimilar(s, halves, o)
	if len(got) != 2 || got[0].size() != 8 || got[1].size() != 8 {
		t.Fatalf("merge gave %d leaves; want the two halves of group 0 joined", len(got))
	}
	// a merge that would leave a leaf due for a split is refused
	strict := o
	strict.LargeLeafSim, strict.MediumLeafSim = 0.999, 0.999
	halves = []*cluster{
		newCluster(s, members(s, "m00-0000", "m00-0001", "m00-0002", "m00-0003")),
		newCluster(s, members(s, "m00-0004", "m00-0005", "m00-0006", "m00-0007")),
	}
	if got := mergeSimilar(s, halves, strict); len(got) != 2 {
		t.Fatalf("merged into a leaf that would be split again")
	}
}

func TestAbsorbSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	centre := randUnit(rng, 64)
	items := []Item{
		{ID: "a1", Vector: around(rng, centre, 0.2)},
		{ID: "a2", Vector: around(rng, centre, 0.2)},
		{ID: "a3", Vector: around(rng, centre, 0.2)},
		{ID: "near", Vector: around(rng, centre, 0.3)},
		{ID: "far", Vector: randUnit(rng, 64)},
	}
	s := spaceOf(items)
	leaves := []*cluster{
		newCluster(s, members(s, "a1", "a2", "a3")),
		newCluster(s, members(s, "near")),
		newCluster(s, members(s, "far")),
	}
	got := absorbSmall(s, leaves, DefaultOptions())
	if len(got) != 2 {
		t.Fatalf("%d leaves, want the near singleton absorbed and the far one kept", len(got))
	}
	for _, l := range got {
		ids := make([]string, len(l.members))
		for i, m := range l.members {
			ids[i] = s.items[m].ID
		}
		if slices.Contains(ids, "near") && len(ids) != 4 || slices.Contains(ids, "far") && len(ids) != 1 {
			t.Fatalf("leaf %v", ids)
		}
	}
}

func TestNameTreeTellsParentAndChildApart(t *testing.T) {
	texts := []string{
		"redis cache eviction lru", "redis cache eviction lru",
		"redis cache eviction ttl", "redis cache eviction ttl",
		"redis cache eviction", "redis cache eviction",
		"postgres vacuum", "postgres vacuum",
	}
	items := make([]Item, len(texts))
	for i, text := range texts {
		items[i] = Item{ID: string(rune('a' + i)), Vector: []float32{1}, Text: text}
	}
	s := spaceOf(items)
	big := &tnode{members: []int{0, 1, 2, 3, 4, 5}}
	small := &tnode{members: []int{6, 7}}
	parent := &tnode{members: []int{0, 1, 2, 3, 4, 5, 6, 7}, children: []*tnode{big, small}}
	nameTree(newVocab(s), []*tnode{parent})
	if parent.name != "redis cache eviction" {
		t.Fatalf("parent named %q, want %q", parent.name, "redis cache eviction")
	}
	if big.name == parent.name || !strings.Contains(big.name, "lru") && !strings.Contains(big.name, "ttl") {
		t.Fatalf("child named %q beside parent %q: want its next word instead of a repeat", big.name, parent.name)
	}
	if small.name != "postgres vacuum" {
		t.Fatalf("small child named %q", small.name)
	}
}

func TestLeaveOneOut(t *testing.T) {
	// for a pair with similarity c, each member's similarity to the other is c
	for _, c := range []float64{-0.5, 0, 0.1, 0.8} {
		norm := math.Sqrt(2 + 2*c)
		cos := norm / 2 // v·(v+w)/|v+w| = (1+c)/|v+w|
		if got := leaveOneOut(cos, norm); math.Abs(got-c) > 1e-9 {
			t.Fatalf("pair at %.2f: leave-one-out %.6f", c, got)
		}
	}
	if got := leaveOneOut(0, 1e-9); got != -1 {
		t.Fatalf("lone vector among cancelling others: %v, want -1", got)
	}
}

func TestReassignSplitsUnalikePair(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 34))
	items := []Item{{ID: "x", Vector: randUnit(rng, 64)}, {ID: "y", Vector: randUnit(rng, 64)}}
	s := spaceOf(items)
	got := reassignOutliers(s, []*cluster{newCluster(s, []int{0, 1})}, DefaultOptions())
	if len(got) != 2 {
		t.Fatalf("%d leaves: two unrelated memories should not share a topic", len(got))
	}
	o := DefaultOptions()
	o.LeafBudget = 1
	if got := reassignOutliers(s, []*cluster{newCluster(s, []int{0, 1})}, o); len(got) != 1 {
		t.Fatalf("%d leaves: no room in the budget for another", len(got))
	}
}
