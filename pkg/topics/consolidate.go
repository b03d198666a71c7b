package topics

import (
	"cmp"
	"slices"
)

// cycles bounds the split/refine loop and mergePasses the merge loop within
// it (003: up to 10 split/merge cycles until stable).
const (
	cycles      = 10
	mergePasses = 10
)

// clusterAll runs 003's consolidation over all memories: split, place
// outliers and merge near-identical leaves, and split again while that frees
// budget for leaves still too loose (up to 10 cycles); then hold the leaf
// budget and absorb small leaves, once, as 003 does after its cycles (within
// them, absorbing would undo the splits of the next cycle).
func clusterAll(s *space, o Options) []*cluster {
	all := make([]int, s.n())
	for i := range all {
		all[i] = i
	}
	leaves, _ := split(s, []*cluster{newCluster(s, all)}, o)
	for range cycles {
		leaves = reassignOutliers(s, leaves, o)
		leaves = mergeSimilar(s, leaves, o)
		var cut bool
		if leaves, cut = split(s, leaves, o); !cut {
			break
		}
	}
	leaves = enforceBudget(s, leaves, o)
	leaves = absorbSmall(s, leaves, o)
	byFirstMember(leaves)
	return leaves
}

// byFirstMember puts disjoint clusters in a fixed order.
func byFirstMember(cs []*cluster) {
	slices.SortFunc(cs, func(a, b *cluster) int { return cmp.Compare(a.members[0], b.members[0]) })
}

func centroids(s *space, cs []*cluster) [][]float32 {
	out := make([][]float32, len(cs))
	for i, c := range cs {
		out[i] = c.centroid(s)
	}
	return out
}

// nearest returns the index of the centre most similar to v, skipping skip,
// and that similarity; ties go to the lower index.
func nearest(v []float32, centres [][]float32, skip int) (int, float64) {
	best, bestSim := -1, -2.0
	for c, centre := range centres {
		if c == skip {
			continue
		}
		if s := float64(dot(v, centre)); s > bestSim {
			best, bestSim = c, s
		}
	}
	return best, bestSim
}
