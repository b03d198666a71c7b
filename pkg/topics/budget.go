package topics

import (
	"cmp"
	"slices"
)

// enforceBudget keeps the largest leaves up to the budget and folds each of
// the others into the kept leaf with the closest centroid.
func enforceBudget(s *space, leaves []*cluster, o Options) []*cluster {
	if len(leaves) <= o.LeafBudget {
		return leaves
	}
	slices.SortFunc(leaves, func(a, b *cluster) int {
		if c := cmp.Compare(b.size(), a.size()); c != 0 {
			return c
		}
		return cmp.Compare(a.members[0], b.members[0])
	})
	kept, rest := leaves[:o.LeafBudget], leaves[o.LeafBudget:]
	cents := centroids(s, kept)
	into := make([]int, len(rest))
	parallelChunks(len(rest), workers(len(rest)*len(cents)*s.dim), func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			into[r], _ = nearest(rest[r].centroid(s), cents, -1)
		}
	})
	for r, c := range rest {
		kept[into[r]].absorb(c)
	}
	byFirstMember(kept)
	return kept
}

// absorbSmall folds each leaf under the minimum size into the leaf with the
// closest centroid when that one is similar enough; smallest first.
func absorbSmall(s *space, leaves []*cluster, o Options) []*cluster {
	if len(leaves) < 2 {
		return leaves
	}
	byFirstMember(leaves)
	var small []int
	for i, l := range leaves {
		if l.size() < o.MinClusterSize {
			small = append(small, i)
		}
	}
	slices.SortStableFunc(small, func(a, b int) int { return cmp.Compare(leaves[a].size(), leaves[b].size()) })
	cents := centroids(s, leaves)
	gone := make([]bool, len(leaves))
	for _, i := range small {
		if leaves[i].size() >= o.MinClusterSize {
			continue // grew by absorbing another
		}
		best, bestSim := -1, -2.0
		for j := range leaves {
			if j == i || gone[j] {
				continue
			}
			if sim := float64(dot(cents[i], cents[j])); sim > bestSim {
				best, bestSim = j, sim
			}
		}
		if best < 0 || bestSim < o.AbsorbThreshold {
			continue
		}
		leaves[best].absorb(leaves[i])
		cents[best] = leaves[best].centroid(s)
		gone[i] = true
	}
	out := leaves[:0]
	for i, l := range leaves {
		if !gone[i] {
			out = append(out, l)
		}
	}
	return out
}
