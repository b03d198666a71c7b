package topics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"time"
)

var built = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestBuildSeparatesGroups(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []int
		spread float64
		dim    int
		// flat: every group is one coherent leaf and a root of its own.
		flat bool
	}{
		{name: "three small coherent groups", sizes: []int{10, 10, 10}, spread: 0.4, dim: 64, flat: true},
		{name: "five coherent groups", sizes: []int{40, 25, 60, 12, 33}, spread: 0.5, dim: 64, flat: true},
		{name: "eight groups in 384 dims", sizes: []int{30, 30, 30, 30, 30, 30, 30, 30}, spread: 0.6, dim: 384, flat: true},
		{name: "loose groups get split", sizes: []int{80, 80, 80, 80}, spread: 1.6, dim: 64},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			items, label := synth(rng, tc.dim, tc.sizes, tc.spread, "m")
			tree := Build("acme", items, DefaultOptions(), built)
			if tree.Memories != len(items) || tree.Tenant != "acme" || !tree.Built.Equal(built) {
				t.Fatalf("tree header = %q %v %d, want acme %v %d", tree.Tenant, tree.Built, tree.Memories, built, len(items))
			}
			checkShape(t, tree)
			leaves := tree.Leaves()
			for _, l := range leaves {
				g := label[l.MemoryIDs[0]]
				for _, id := range l.MemoryIDs {
					if label[id] != g {
						t.Fatalf("leaf %s %q mixes group %d and %d", l.ID, l.Name, g, label[id])
					}
				}
			}
			// every group lives under exactly one root, and no root holds two groups
			rootOf := map[int]string{}
			for _, r := range tree.Roots {
				groups := map[int]bool{}
				for _, id := range r.MemoryIDs {
					groups[label[id]] = true
					if prev, ok := rootOf[label[id]]; ok && prev != r.ID {
						t.Fatalf("group %d spread over roots %s and %s", label[id], prev, r.ID)
					}
					rootOf[label[id]] = r.ID
				}
				if len(groups) != 1 {
					t.Fatalf("root %s %q holds %d groups", r.ID, r.Name, len(groups))
				}
			}
			if len(tree.Roots) != len(tc.sizes) {
				t.Fatalf("%d roots, want %d", len(tree.Roots), len(tc.sizes))
			}
			if tc.flat {
				if len(leaves) != len(tc.sizes) {
					t.Fatalf("%d leaves, want one per group (%d)", len(leaves), len(tc.sizes))
				}
				return
			}
			if len(leaves) <= len(tc.sizes) {
				t.Fatalf("%d leaves: loose groups of 80 should have been split", len(leaves))
			}
			for _, r := range tree.Roots {
				if r.Leaf() {
					t.Fatalf("root %s is a leaf; the pieces of a loose group belong under one parent", r.ID)
				}
			}
		})
	}
}

func TestBuildHierarchy(t *testing.T) {
	// three super-topics of four sub-topics each: memories of one sub-topic
	// are ~0.5 alike, sub-topics of one super-topic ~0.6, super-topics ~0
	const supers = 3
	items, superOf := nested(rand.New(rand.NewPCG(3, 3)), 96, supers, 4, 12, 0.6, 1.0)
	tree := Build("acme", items, DefaultOptions(), built)
	checkShape(t, tree)
	if len(tree.Roots) != supers {
		t.Fatalf("%d roots, want %d:\n%s", len(tree.Roots), supers, dump(tree))
	}
	for _, r := range tree.Roots {
		if r.Leaf() {
			t.Fatalf("root %s is a leaf; want a parent of sub-topics:\n%s", r.ID, dump(tree))
		}
		if r.Size != len(items)/supers {
			t.Fatalf("root %s holds %d memories, want %d", r.ID, r.Size, len(items)/supers)
		}
		s := superOf[r.MemoryIDs[0]]
		for _, id := range r.MemoryIDs {
			if superOf[id] != s {
				t.Fatalf("root %s mixes super-topics", r.ID)
			}
		}
	}
}

// checkShape checks the invariants every tree keeps.
func checkShape(t *testing.T, tree Tree) {
	t.Helper()
	o := DefaultOptions()
	ids := map[string]bool{}
	leafMembers := 0
	idPattern := regexp.MustCompile(`^t[0-9a-f]{12}$`)
	walk(tree, func(n *Node, depth int) {
		if !idPattern.MatchString(n.ID) {
			t.Errorf("topic id %q is not t + 12 hex", n.ID)
		}
		if ids[n.ID] {
			t.Errorf("topic id %s used twice", n.ID)
		}
		ids[n.ID] = true
		if n.Size != len(n.MemoryIDs) || n.Size == 0 {
			t.Errorf("topic %s size %d with %d memory ids", n.ID, n.Size, len(n.MemoryIDs))
		}
		if n.Name == "" {
			t.Errorf("topic %s has no name", n.ID)
		}
		if depth > o.MaxDepth+1 {
			t.Errorf("topic %s at depth %d, over %d", n.ID, depth, o.MaxDepth+1)
		}
		if n.Leaf() {
			leafMembers += n.Size
			return
		}
		if len(n.Children) < 2 {
			t.Errorf("parent %s has %d children", n.ID, len(n.Children))
		}
		var union []string
		for i, c := range n.Children {
			union = append(union, c.MemoryIDs...)
			if i > 0 && (c.Size > n.Children[i-1].Size || c.Size == n.Children[i-1].Size && c.ID < n.Children[i-1].ID) {
				t.Errorf("children of %s out of order", n.ID)
			}
		}
		if !sameSet(union, n.MemoryIDs) {
			t.Errorf("parent %s memories are not the union of its children's", n.ID)
		}
	})
	if leafMembers != tree.Memories {
		t.Errorf("leaves hold %d memories, tree has %d", leafMembers, tree.Memories)
	}
	if n := len(tree.Leaves()); n > o.LeafBudget {
		t.Errorf("%d leaves over the budget %d", n, o.LeafBudget)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestBuildDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	items, _ := synth(rng, 48, []int{50, 7, 33, 90, 3, 21, 64}, 1.2, "d")
	noise, _ := synth(rng, 48, []int{1, 1, 1, 1, 1}, 0.1, "z") // lone memories
	items = append(items, noise...)
	want := Build("acme", items, DefaultOptions(), built)
	checkShape(t, want)
	wantJSON, _ := json.Marshal(want)
	for i := 0; i < 4; i++ {
		got := Build("acme", shuffled(rng, items), DefaultOptions(), built)
		if !reflect.DeepEqual(got, want) {
			gotJSON, _ := json.Marshal(got)
			t.Fatalf("shuffle %d gave a different tree:\n got %s\nwant %s", i, gotJSON, wantJSON)
		}
	}
}

func TestBuildStableIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base, _ := synth(rng, 64, []int{20, 30, 15, 25}, 0.5, "s")
	extra, _ := synth(rng, 64, []int{18}, 0.5, "x") // a new, unrelated topic
	before := Build("acme", base, DefaultOptions(), built)
	after := Build("acme", append(shuffled(rng, base), extra...), DefaultOptions(), built.Add(time.Hour))
	for _, l := range before.Leaves() {
		n, ok := after.Find(l.ID)
		if !ok {
			t.Fatalf("topic %s %q lost its id when an unrelated topic arrived", l.ID, l.Name)
		}
		if !sameSet(n.MemoryIDs, l.MemoryIDs) {
			t.Fatalf("topic %s changed members", l.ID)
		}
	}
	// a topic that gains a memory gets a new id; the others keep theirs
	grown := append(slices.Clone(base), Item{ID: "s00-new", Vector: around(rng, meanVector(base[:20]), 0.2)})
	changed := Build("acme", grown, DefaultOptions(), built)
	kept := 0
	for _, l := range before.Leaves() {
		if _, ok := changed.Find(l.ID); ok {
			kept++
		}
	}
	if kept != len(before.Leaves())-1 {
		t.Fatalf("%d of %d topic ids kept after one topic grew, want all but one", kept, len(before.Leaves()))
	}
}

func meanVector(items []Item) []float32 {
	sum := make([]float64, len(items[0].Vector))
	for _, it := range items {
		for j, x := range it.Vector {
			sum[j] += float64(x)
		}
	}
	u, _ := unit(sum)
	return u
}

func TestBuildEmpty(t *testing.T) {
	for _, items := range [][]Item{nil, {}, {{ID: "a"}, {ID: "b", Vector: []float32{}}}} {
		tree := Build("acme", items, DefaultOptions(), built)
		if tree.Memories != 0 || len(tree.Roots) != 0 || tree.Roots == nil {
			t.Fatalf("empty input gave %+v", tree)
		}
		if _, ok := tree.Find("t000000000000"); ok {
			t.Fatal("found a topic in an empty tree")
		}
		if b, _ := json.Marshal(tree); !regexp.MustCompile(`"roots":\[\]`).Match(b) {
			t.Fatalf("empty tree marshals as %s, want roots []", b)
		}
	}
}

func TestBuildSkipsUnusableItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	items, _ := synth(rng, 32, []int{12, 12}, 0.4, "ok")
	bad := []Item{
		{ID: "no-vector", Text: "nothing"},
		{ID: "zero", Vector: make([]float32, 32)},
		{ID: "nan", Vector: append([]float32{float32(math.NaN())}, make([]float32, 31)...)},
		{ID: "inf", Vector: append([]float32{float32(math.Inf(1))}, make([]float32, 31)...)},
		{ID: "short", Vector: []float32{1, 0, 0}},
		{ID: "", Vector: randUnit(rng, 32)},
	}
	dup := items[0]
	dup.Text = "another copy of the same id"
	all := append(append(shuffled(rng, items), bad...), dup)
	tree := Build("acme", all, DefaultOptions(), built)
	if tree.Memories != len(items) {
		t.Fatalf("memories = %d, want %d", tree.Memories, len(items))
	}
	seen := map[string]int{}
	for _, l := range tree.Leaves() {
		for _, id := range l.MemoryIDs {
			seen[id]++
		}
	}
	for _, b := range bad {
		if seen[b.ID] > 0 {
			t.Fatalf("unusable item %q placed in the tree", b.ID)
		}
	}
	for _, it := range items {
		if seen[it.ID] != 1 {
			t.Fatalf("item %s placed %d times", it.ID, seen[it.ID])
		}
	}
	// unnormalised vectors are normalised, not rejected
	scaled := slices.Clone(items)
	for i := range scaled {
		v := make([]float32, len(scaled[i].Vector))
		for j, x := range scaled[i].Vector {
			v[j] = x * 3
		}
		scaled[i].Vector = v
	}
	if got, want := Build("acme", scaled, DefaultOptions(), built), Build("acme", items, DefaultOptions(), built); !reflect.DeepEqual(got.Leaves(), want.Leaves()) {
		t.Fatal("scaling the vectors changed the tree")
	}
}

func TestFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	items, _ := synth(rng, 64, []int{40, 40, 40, 40, 40, 40}, 1.6, "f")
	tree := Build("acme", items, DefaultOptions(), built)
	count := 0
	walk(tree, func(n *Node, _ int) {
		count++
		got, ok := tree.Find(n.ID)
		if !ok || got != n {
			t.Fatalf("Find(%s) = %v, %v; want the node itself", n.ID, got, ok)
		}
	})
	if count < 2 {
		t.Fatalf("tree has %d nodes; the test needs several", count)
	}
	for _, id := range []string{"", "nope", items[0].ID} {
		if _, ok := tree.Find(id); ok {
			t.Fatalf("Find(%q) found something", id)
		}
	}
}

func TestMemoryOrderAndDomains(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	centre := randUnit(rng, 32)
	items := []Item{
		{ID: "a", Vector: around(rng, centre, 0.1), Importance: 0.2, Domain: "general"},
		{ID: "b", Vector: around(rng, centre, 0.1), Importance: 0.9, Domain: "tool-usage"},
		{ID: "c", Vector: around(rng, centre, 0.1), Importance: 0.5, Domain: "general"},
		{ID: "d", Vector: around(rng, centre, 0.1), Importance: 0.5},
	}
	tree := Build("acme", items, DefaultOptions(), built)
	if len(tree.Roots) != 1 {
		t.Fatalf("%d roots, want 1", len(tree.Roots))
	}
	r := tree.Roots[0]
	if want := []string{"b", "c", "d", "a"}; !slices.Equal(r.MemoryIDs, want) {
		t.Fatalf("memory ids = %v, want %v (importance, then id)", r.MemoryIDs, want)
	}
	if want := map[string]int{"general": 2, "tool-usage": 1}; !reflect.DeepEqual(r.Domains, want) {
		t.Fatalf("domains = %v, want %v", r.Domains, want)
	}
}

func TestLeafBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	sizes := make([]int, 30)
	for i := range sizes {
		sizes[i] = 6
	}
	items, _ := synth(rng, 64, sizes, 0.3, "b")
	o := DefaultOptions()
	o.LeafBudget = 10
	tree := Build("acme", items, o, built)
	leaves := tree.Leaves()
	if len(leaves) == 0 || len(leaves) > 10 {
		t.Fatalf("%d leaves, want 1..10", len(leaves))
	}
	total := 0
	for _, l := range leaves {
		total += l.Size
	}
	if total != len(items) {
		t.Fatalf("leaves hold %d memories, want %d", total, len(items))
	}
}

func TestBuildNoise(t *testing.T) {
	// vectors with no structure at all still give a bounded, complete tree
	rng := rand.New(rand.NewPCG(2, 2))
	items := make([]Item, 1500)
	for i := range items {
		items[i] = Item{ID: string(rune(0x4e00 + i)), Vector: randUnit(rng, 64)}
	}
	tree := Build("acme", items, DefaultOptions(), built)
	checkShape(t, tree)
	if tree.Memories != len(items) {
		t.Fatalf("memories = %d, want %d", tree.Memories, len(items))
	}
}

func TestBuildSameOnAnyCPUCount(t *testing.T) {
	// big enough for the passes to run on several goroutines
	items := benchItems(3000, 40, 1.0)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := Build("acme", items, DefaultOptions(), built)
	runtime.GOMAXPROCS(4)
	four := Build("acme", items, DefaultOptions(), built)
	if !reflect.DeepEqual(one, four) {
		t.Fatal("the tree depends on the number of CPUs")
	}
	if workers(len(items)*3*384) < 2 {
		t.Fatal("the test data is too small to exercise the parallel passes")
	}
}

func TestBuildOddInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 77))
	many := func(n int, v func(i int) []float32) []Item {
		items := make([]Item, n)
		for i := range items {
			items[i] = Item{ID: string(rune('A'+i%26)) + string(rune('a'+i/26)), Vector: v(i), Text: "same words here"}
		}
		return items
	}
	loose, _ := synth(rng, 16, []int{40, 40, 40}, 3, "l")
	tiny := Options{LeafBudget: 1, MaxLeafSize: 1, MaxDepth: 1, MaxChildren: 2, MinClusterSize: 1}
	tests := []struct {
		name  string
		items []Item
		opts  Options
	}{
		{"identical vectors", many(30, func(int) []float32 { return []float32{0.6, 0.8} }), DefaultOptions()},
		{"opposite vectors", many(30, func(i int) []float32 { return []float32{float32(1 - 2*(i%2))} }), DefaultOptions()},
		{"one dimension", many(50, func(i int) []float32 { return []float32{float32(i%3) - 1} }), DefaultOptions()},
		{"single item", many(1, func(int) []float32 { return []float32{1, 0} }), DefaultOptions()},
		{"budget of one", loose, tiny},
		{"tiny limits", loose, Options{LeafBudget: 5, MaxLeafSize: 2, MaxDepth: 1, MaxChildren: 2}},
		{"huge limits", loose, Options{LeafBudget: 100000, MaxLeafSize: 100000, MaxDepth: 50, MaxChildren: 100000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree := Build("acme", tc.items, tc.opts, built)
			usable := newSpace(tc.items).n()
			if tree.Memories != usable {
				t.Fatalf("memories = %d, want %d", tree.Memories, usable)
			}
			total := 0
			seen := map[string]bool{}
			for _, l := range tree.Leaves() {
				total += l.Size
				for _, id := range l.MemoryIDs {
					if seen[id] {
						t.Fatalf("%s in two leaves", id)
					}
					seen[id] = true
				}
			}
			if total != usable {
				t.Fatalf("leaves hold %d memories, want %d", total, usable)
			}
			if o := tc.opts.withDefaults(); len(tree.Leaves()) > o.LeafBudget {
				t.Fatalf("%d leaves over the budget %d", len(tree.Leaves()), o.LeafBudget)
			}
		})
	}
}
