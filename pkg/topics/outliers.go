package topics

import (
	"cmp"
	"math"
	"slices"
)

// reassignOutliers applies 003's insert rule to every memory that its leaf
// would not take in today: one whose similarity to the centroid of the
// leaf's other members is under the assign threshold (for a pair, the two are
// simply unalike). Those are mostly memories an early, coarse bisection sent
// the wrong way, and pairs left over from splitting a small mixed leaf. Each
// moves to the closest other leaf that is similar enough, or, while the leaf
// budget has room (most distinct first), into a leaf of its own; otherwise it
// stays. Large leaves with no centre to speak of (coherence under the
// threshold squared; only unstructured data has them) are skipped: every
// member would look like an outlier, and checking them all against every
// leaf would cost O(n·L·d) for nothing. Centroids stay fixed during the pass,
// so the outcome does not depend on the order of memories.
func reassignOutliers(s *space, leaves []*cluster, o Options) []*cluster {
	byFirstMember(leaves)
	cents := centroids(s, leaves)
	type outlier struct {
		item, from, to int
		sim            float64
	}
	var out []outlier
	for li, l := range leaves {
		if l.size() < 2 || l.size() > o.MaxLeafSize && l.coherence() < o.AssignThreshold*o.AssignThreshold {
			continue
		}
		for _, i := range l.members {
			if sim := leaveOneOut(float64(dot(s.vec(i), cents[li])), l.norm); sim < o.AssignThreshold {
				out = append(out, outlier{item: i, from: li, to: -1, sim: sim})
			}
		}
	}
	if len(out) == 0 {
		return leaves
	}
	parallelChunks(len(out), workers(len(out)*len(cents)*s.dim), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			if to, sim := nearest(s.vec(out[k].item), cents, out[k].from); to >= 0 && sim >= o.AssignThreshold {
				out[k].to = to
			}
		}
	})
	slices.SortFunc(out, func(a, b outlier) int {
		if c := cmp.Compare(a.sim, b.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.item, b.item)
	})
	room := o.LeafBudget - len(leaves)
	leaving := make(map[int]bool, len(out))
	arriving := make([][]int, len(leaves))
	var alone []int
	for _, m := range out {
		switch {
		case m.to >= 0:
			arriving[m.to] = append(arriving[m.to], m.item)
		case len(alone) < room:
			alone = append(alone, m.item)
		default:
			continue
		}
		leaving[m.item] = true
	}
	next := make([]*cluster, 0, len(leaves)+len(alone))
	for li, l := range leaves {
		if len(arriving[li]) == 0 && !slices.ContainsFunc(l.members, func(i int) bool { return leaving[i] }) {
			next = append(next, l)
			continue
		}
		members := make([]int, 0, l.size()+len(arriving[li]))
		for _, i := range l.members {
			if !leaving[i] {
				members = append(members, i)
			}
		}
		members = append(members, arriving[li]...)
		if len(members) == 0 {
			continue
		}
		slices.Sort(members)
		next = append(next, newCluster(s, members))
	}
	for _, i := range alone {
		next = append(next, newCluster(s, []int{i}))
	}
	byFirstMember(next)
	return next
}

// leaveOneOut is the similarity of a member v to the rest of its cluster,
// from v's similarity to the cluster's centroid and the length of its vector
// sum S: v·(S−v) / |S−v|, with v·S = cos·|S| and |S−v|² = |S|² − 2v·S + 1.
func leaveOneOut(cos, norm float64) float64 {
	vs := cos * norm
	rest := norm*norm - 2*vs + 1
	if rest < 1e-12 {
		return -1 // the others cancel out: nothing to be similar to
	}
	return (vs - 1) / math.Sqrt(rest)
}
