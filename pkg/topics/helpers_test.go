package topics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// synth makes groups of unit vectors scattered around random centres.
// spread is σ²·dim of the noise: the expected cosine between two members of
// a group is about 1/(1+spread), between groups about 0.
func synth(rng *rand.Rand, dim int, sizes []int, spread float64, prefix string) (items []Item, label map[string]int) {
	label = map[string]int{}
	sigma := math.Sqrt(spread / float64(dim))
	for g, n := range sizes {
		centre := randUnit(rng, dim)
		for k := 0; k < n; k++ {
			v := make([]float64, dim)
			for j := range v {
				v[j] = float64(centre[j]) + sigma*rng.NormFloat64()
			}
			u, _ := unit(v)
			id := fmt.Sprintf("%s%02d-%04d", prefix, g, k)
			items = append(items, Item{ID: id, Vector: u, Text: fmt.Sprintf("note %d of group %d", k, g), Importance: float64(k % 5)})
			label[id] = g
		}
	}
	return items, label
}

func randUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float64, dim)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	u, _ := unit(v)
	return u
}

// around returns a unit vector at roughly cosine 1/√(1+spread) from c.
func around(rng *rand.Rand, c []float32, spread float64) []float32 {
	sigma := math.Sqrt(spread / float64(len(c)))
	v := make([]float64, len(c))
	for j := range v {
		v[j] = float64(c[j]) + sigma*rng.NormFloat64()
	}
	u, _ := unit(v)
	return u
}

func shuffled(rng *rand.Rand, items []Item) []Item {
	out := append([]Item(nil), items...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// walk visits every node of the tree with its depth (roots at 1).
func walk(t Tree, fn func(n *Node, depth int)) {
	var rec func(ns []*Node, d int)
	rec = func(ns []*Node, d int) {
		for _, n := range ns {
			fn(n, d)
			rec(n.Children, d+1)
		}
	}
	rec(t.Roots, 1)
}

// nested makes super-topics made of sub-topics: sub-topic centres scatter
// around each super-topic centre with subSpread, memories around their
// sub-topic centre with itemSpread. It returns each memory's super-topic.
func nested(rng *rand.Rand, dim, supers, subs, per int, subSpread, itemSpread float64) ([]Item, map[string]int) {
	var items []Item
	superOf := map[string]int{}
	for s := 0; s < supers; s++ {
		centre := randUnit(rng, dim)
		for b := 0; b < subs; b++ {
			sub := around(rng, centre, subSpread)
			for k := 0; k < per; k++ {
				id := fmt.Sprintf("%d-%d-%02d", s, b, k)
				items = append(items, Item{ID: id, Vector: around(rng, sub, itemSpread)})
				superOf[id] = s
			}
		}
	}
	return items, superOf
}

func dump(tree Tree) string {
	var b strings.Builder
	walk(tree, func(n *Node, d int) {
		fmt.Fprintf(&b, "%s%s %q size=%d first=%s\n", strings.Repeat("  ", d-1), n.ID, n.Name, n.Size, n.MemoryIDs[0])
	})
	return b.String()
}
