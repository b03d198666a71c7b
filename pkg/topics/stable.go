package topics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// MinOverlap is the Jaccard similarity of two topics' memory sets above
// which a rebuilt topic is "substantially the same" as a previous one and
// keeps its id (KeepIDs).
const MinOverlap = 0.5

// KeepIDs carries topic ids over from the previous tree: a topic of t whose
// memories overlap a topic of prev by a Jaccard similarity of at least
// MinOverlap takes that topic's id, so `recollect topics <id>` and the ids
// in an agent's resume survive a rebuild that added or removed a few
// memories. Matching is one to one, best overlap first (ties by the ids),
// at any depth. A topic that matches none keeps the id derived from its
// members, unless a kept id already uses it (then it gets one derived from
// that id). Children and roots are sorted again (ties are by id).
func (t *Tree) KeepIDs(prev Tree) {
	olds := prev.nodes()
	news := t.nodes()
	if len(olds) == 0 || len(news) == 0 {
		return
	}
	// Which previous topics each memory was in.
	in := map[string][]int{}
	for oi, o := range olds {
		for _, id := range o.MemoryIDs {
			in[id] = append(in[id], oi)
		}
	}
	type pair struct {
		ni, oi  int
		jaccard float64
	}
	var pairs []pair
	shared := map[int]int{}
	for ni, n := range news {
		clear(shared)
		for _, id := range n.MemoryIDs {
			for _, oi := range in[id] {
				shared[oi]++
			}
		}
		for oi, common := range shared {
			union := len(n.MemoryIDs) + len(olds[oi].MemoryIDs) - common
			if j := float64(common) / float64(union); j >= MinOverlap {
				pairs = append(pairs, pair{ni, oi, j})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(b.jaccard, a.jaccard); c != 0 {
			return c
		}
		if c := strings.Compare(olds[a.oi].ID, olds[b.oi].ID); c != 0 {
			return c
		}
		return strings.Compare(news[a.ni].ID, news[b.ni].ID)
	})
	newDone, oldDone := make([]bool, len(news)), make([]bool, len(olds))
	kept := map[string]bool{}
	for _, p := range pairs {
		if newDone[p.ni] || oldDone[p.oi] {
			continue
		}
		newDone[p.ni], oldDone[p.oi] = true, true
		news[p.ni].ID = olds[p.oi].ID
		kept[olds[p.oi].ID] = true
	}
	for ni, n := range news {
		for !newDone[ni] && kept[n.ID] {
			n.ID = "t" + strings.ReplaceAll(memory.DeterministicID("topic-again", n.ID), "-", "")[:topicIDChars]
		}
	}
	var resort func(ns []*Node)
	resort = func(ns []*Node) {
		sortNodes(ns)
		for _, n := range ns {
			resort(n.Children)
		}
	}
	resort(t.Roots)
}

// nodes lists every topic, parents before their children.
func (t Tree) nodes() []*Node {
	var out []*Node
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			out = append(out, n)
			walk(n.Children)
		}
	}
	walk(t.Roots)
	return out
}
