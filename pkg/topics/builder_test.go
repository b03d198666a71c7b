package topics

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// TestBuilderSpace checks the vectors a builder keeps over several blocks:
// whatever the order they came in, with duplicate ids and vectors of
// another dimension among them, item i of the space has its own unit vector
// at slot i.
func TestBuilderSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dim = 2*vectorBlock + 300, 16
	want := map[string][]float32{}
	var items []Item
	for i := range n {
		id := fmt.Sprintf("m%05d", i)
		v := randUnit(rng, dim)
		scaled := make([]float32, dim)
		for j, x := range v {
			scaled[j] = 5 * x
		}
		items = append(items, Item{ID: id, Vector: scaled, Text: "text of " + id})
		want[id] = newSpace([]Item{{ID: id, Vector: scaled}}).vec(0)
	}
	for i := range 40 { // duplicates: the copy with the later text is dropped
		dup := items[rng.IntN(n)]
		dup.Text += " (later copy)"
		dup.Vector = randUnit(rng, dim)
		items = append(items, dup)
		items = append(items, Item{ID: fmt.Sprintf("w%03d", i), Vector: randUnit(rng, dim+1)}) // the minority dimension
	}
	items = append(items, Item{ID: "unusable", Vector: make([]float32, dim)})

	b := NewBuilder()
	for _, it := range shuffled(rng, items) {
		b.Add(it)
	}
	s := b.space()
	if s.n() != n || s.dim != dim {
		t.Fatalf("space of %d items of %d dimensions, want %d of %d", s.n(), s.dim, n, dim)
	}
	for i, e := range s.items {
		if i > 0 && s.items[i-1].ID >= e.ID {
			t.Fatalf("items out of id order at %d: %s then %s", i, s.items[i-1].ID, e.ID)
		}
		if !slices.Equal(s.vec(i), want[e.ID]) {
			t.Fatalf("item %d (%s) has another item's vector", i, e.ID)
		}
		if text, ok := b.Text(e.ID); !ok || text != "text of "+e.ID {
			t.Fatalf("Text(%s) = %q, %v", e.ID, text, ok)
		}
	}
	if _, ok := b.Text("w000"); ok {
		t.Fatal("Text found a memory the tree does not hold")
	}
}

func TestBuilderMatchesBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	items, _ := synth(rng, 48, []int{300, 700, 90, 1200, 40}, 1.2, "b")
	want := Build("acme", items, DefaultOptions(), built)
	b := NewBuilder()
	for _, it := range shuffled(rng, items) {
		b.Add(it)
	}
	if got := b.Build("acme", DefaultOptions(), built); !reflect.DeepEqual(got, want) {
		t.Fatal("a builder fed in another order built another tree")
	}
	if again := b.Build("acme", DefaultOptions(), built); !reflect.DeepEqual(again, want) {
		t.Fatal("a second Build gave another tree")
	}
	b.Add(Item{ID: "late", Vector: randUnit(rng, 48)})
	if _, ok := b.Text("late"); ok {
		t.Fatal("Add after Build took the memory")
	}
}

// TestBuilderHoldsOneCopy checks that a builder keeps about one float32
// copy of each vector and little else, while the caller lets each memory
// go (as a store scroll does): the live heap after adding n memories grows
// by at most dim×4 bytes per memory plus a generous allowance.
func TestBuilderHoldsOneCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 30 MB; skipped with -short")
	}
	const n, dim = 20_000, 384
	tenant := newMemTenant(n, 60)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := NewBuilder()
	tenant.scroll(b.Add)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perItem := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	if limit := int64(dim*4 + 512); perItem > limit {
		t.Fatalf("the builder holds %d bytes a memory, want at most %d", perItem, limit)
	}
	t.Logf("the builder holds %d bytes a memory (%d of them the vector)", perItem, dim*4)
	if tree := b.Build("acme", DefaultOptions(), built); tree.Memories != n {
		t.Fatalf("tree holds %d memories, want %d", tree.Memories, n)
	}
	runtime.KeepAlive(b)
}
