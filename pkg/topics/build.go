package topics

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// topicIDChars is the length of the hex part of a topic id: short because
// resume lists topic ids in the agent's prompt, long enough (48 bits) that
// two topics of one tenant never collide in practice.
const topicIDChars = 12

// Build clusters a tenant's memories into a topic tree. The same items give
// the same tree whatever their order; items that cannot be placed (no id, no
// usable vector) are left out. Zero or out-of-range options take defaults.
// A caller that reads the memories from a store hands them to a Builder
// instead, and need not hold them all with their vectors.
func Build(tenant string, items []Item, opts Options, now time.Time) Tree {
	b := NewBuilder()
	for _, it := range items {
		b.Add(it)
	}
	return b.Build(tenant, opts, now)
}

func build(tenant string, s *space, opts Options, now time.Time) Tree {
	o := opts.withDefaults()
	t := Tree{Tenant: tenant, Built: now, Memories: s.n(), Roots: []*Node{}}
	if s.n() == 0 {
		return t
	}
	leaves := clusterAll(s, o)
	nodes := make([]*tnode, len(leaves))
	for i, c := range leaves {
		nodes[i] = leafNode(s, c)
	}
	s.dropVectors()
	roots := pruneSingles(buildHierarchy(s, nodes, o))
	sortTree(roots) // naming runs largest first, so the larger topic keeps a contested name
	nameTree(newVocab(s), roots)
	for _, r := range roots {
		t.Roots = append(t.Roots, export(s, r))
	}
	sortNodes(t.Roots)
	return t
}

// topicID derives a topic's id from the ids of the memories beneath it;
// members are ascending indices into the id-sorted space, so the ids come
// in a fixed order.
func topicID(s *space, members []int) string {
	ids := make([]string, 0, len(members)+1)
	ids = append(ids, "topic")
	for _, i := range members {
		ids = append(ids, s.items[i].ID)
	}
	return "t" + strings.ReplaceAll(memory.DeterministicID(ids...), "-", "")[:topicIDChars]
}

func export(s *space, n *tnode) *Node {
	out := &Node{ID: n.id, Name: n.name, Size: len(n.members), MemoryIDs: make([]string, 0, len(n.members))}
	order := slices.Clone(n.members)
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(s.items[b].Importance, s.items[a].Importance) // ids already ascending
	})
	for _, i := range order {
		out.MemoryIDs = append(out.MemoryIDs, s.items[i].ID)
		if d := s.items[i].Domain; d != "" {
			if out.Domains == nil {
				out.Domains = map[string]int{}
			}
			out.Domains[d]++
		}
	}
	for _, c := range n.children {
		out.Children = append(out.Children, export(s, c))
	}
	sortNodes(out.Children)
	return out
}

func sortTree(ns []*tnode) {
	slices.SortFunc(ns, func(a, b *tnode) int {
		if c := cmp.Compare(len(b.members), len(a.members)); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	for _, n := range ns {
		sortTree(n.children)
	}
}

// sortNodes orders topics largest first, ties by id.
func sortNodes(ns []*Node) {
	slices.SortFunc(ns, func(a, b *Node) int {
		if c := cmp.Compare(b.Size, a.Size); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
