package topics

import (
	"math"
	"slices"
	"strings"
)

// tnode is a topic while the tree is being built.
type tnode struct {
	id       string
	members  []int     // ascending indices of every memory beneath
	sum      []float64 // their vector sum
	centre   []float32
	children []*tnode
	name     string
}

func leafNode(s *space, c *cluster) *tnode {
	return &tnode{id: topicID(s, c.members), members: c.members, sum: c.sum, centre: c.centroid(s)}
}

func parentNode(s *space, children []*tnode) *tnode {
	p := &tnode{children: children, sum: make([]float64, s.dim)}
	for _, c := range children {
		p.members = mergeSorted(p.members, c.members)
		for j, x := range c.sum {
			p.sum[j] += x
		}
	}
	p.centre, _ = unit(p.sum)
	if p.centre == nil {
		p.centre = children[0].centre
	}
	p.id = topicID(s, p.members)
	return p
}

// buildHierarchy groups the leaves under parents. 003 runs k-means over
// leaf centroids with k = √leaves (3..12); that k rarely matches the number
// of real groups, so one topic ends up cut across sibling parents and
// unrelated ones share a parent. Instead, an average-linkage tree over the
// leaf centroids is cut where topics stop being ParentThreshold alike; only
// when that leaves a single group is it cut into 003's k groups. Parents with
// more than MaxChildren children are divided again (k = √children, 2..6) down
// to MaxDepth levels. Fewer than four leaves stay flat, as in 003.
func buildHierarchy(s *space, leaves []*tnode, o Options) []*tnode {
	slices.SortFunc(leaves, func(a, b *tnode) int { return strings.Compare(a.id, b.id) })
	if len(leaves) < 4 {
		return leaves
	}
	vs := make([][]float32, len(leaves))
	for i, l := range leaves {
		vs[i] = l.centre
	}
	d := averageLinkage(vs)
	parts := d.cut(d.root(), o.ParentThreshold)
	if len(parts) < 2 {
		parts = d.split(parts, clampRoot(len(leaves), 3, 12))
	}
	return shape(s, d, leaves, parts, 1, o)
}

// shape turns dendrogram parts into topics at depth: a single leaf stays a
// leaf, a larger part becomes a parent, divided further when it has too many
// children and depth allows.
func shape(s *space, d *dendrogram, leaves []*tnode, parts []int, depth int, o Options) []*tnode {
	out := make([]*tnode, 0, len(parts))
	for _, p := range parts {
		if d.isLeaf(p) {
			out = append(out, leaves[p])
			continue
		}
		members := d.leaves(p)
		var children []*tnode
		if len(members) > o.MaxChildren && depth < o.MaxDepth {
			children = shape(s, d, leaves, d.split([]int{p}, clampRoot(len(members), 2, 6)), depth+1, o)
		} else {
			for _, m := range members {
				children = append(children, leaves[m])
			}
		}
		out = append(out, parentNode(s, children))
	}
	return out
}

// clampRoot is round(√n) kept within [lo, hi].
func clampRoot(n, lo, hi int) int {
	return min(max(int(math.Round(math.Sqrt(float64(n)))), lo), hi)
}

// pruneSingles replaces every parent that has a single child by that child.
func pruneSingles(nodes []*tnode) []*tnode {
	for i, n := range nodes {
		n.children = pruneSingles(n.children)
		for len(n.children) == 1 {
			n = n.children[0]
		}
		nodes[i] = n
	}
	return nodes
}
