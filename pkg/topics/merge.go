package topics

import (
	"cmp"
	"slices"
)

// mergeSimilar merges pairs of leaves whose centroids are at least the merge
// threshold alike, most alike first, unless the merged leaf would be due for
// a split (which the next cycle would undo). Each pass merges disjoint pairs;
// similarities are kept in a matrix and only a merged leaf's row is
// recomputed, so a pass costs O(L²) comparisons rather than O(L²·d).
func mergeSimilar(s *space, leaves []*cluster, o Options) []*cluster {
	type pair struct {
		i, j int
		sim  float32
	}
	byFirstMember(leaves)
	n := len(leaves)
	cents := centroids(s, leaves)
	sim := make([]float32, n*n)
	parallelChunks(n, workers(n*n*s.dim/2), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := i + 1; j < n; j++ {
				sim[i*n+j] = dot(cents[i], cents[j])
			}
		}
	})
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	threshold := float32(o.MergeThreshold)
	for range mergePasses {
		var pairs []pair
		for i := range n {
			if !alive[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if alive[j] && sim[i*n+j] >= threshold {
					pairs = append(pairs, pair{i, j, sim[i*n+j]})
				}
			}
		}
		slices.SortFunc(pairs, func(a, b pair) int {
			if c := cmp.Compare(b.sim, a.sim); c != 0 {
				return c
			}
			if c := cmp.Compare(a.i, b.i); c != 0 {
				return c
			}
			return cmp.Compare(a.j, b.j)
		})
		used := make([]bool, n)
		var merged []int
		for _, p := range pairs {
			if used[p.i] || used[p.j] {
				continue
			}
			a, b := leaves[p.i], leaves[p.j]
			if splitDue(a.size()+b.size(), a.mergedCoherence(b), o) {
				continue
			}
			a.absorb(b)
			alive[p.j] = false
			used[p.i], used[p.j] = true, true
			merged = append(merged, p.i)
		}
		if len(merged) == 0 {
			break
		}
		for _, i := range merged {
			cents[i] = leaves[i].centroid(s)
		}
		for _, i := range merged {
			for j := range n {
				if j == i || !alive[j] {
					continue
				}
				v := dot(cents[i], cents[j])
				sim[min(i, j)*n+max(i, j)] = v
			}
		}
	}
	out := leaves[:0]
	for i, l := range leaves {
		if alive[i] {
			out = append(out, l)
		}
	}
	return out
}
