package topics

import (
	"container/heap"
	"strconv"
)

// wideSplit is the size above which a cluster is cut in three rather than
// two (as engram does), saving a level of bisection on big clusters.
const wideSplit = 60

// split cuts clusters top-down into leaves: it keeps bisecting the cluster
// that falls furthest short of the coherence its size calls for (size ×
// shortfall, so clear mixtures go before loose but uniform topics), until no
// cluster falls short or the leaf budget is reached. It reports whether it
// cut anything.
func split(s *space, start []*cluster, o Options) ([]*cluster, bool) {
	var done []*cluster
	pending := &shortfallHeap{}
	queue := func(c *cluster) {
		if short := shortfall(c, o); short > 0 {
			heap.Push(pending, shortItem{c, short * float64(c.size())})
		} else {
			done = append(done, c)
		}
	}
	for _, c := range start {
		queue(c)
	}
	cut := false
	for pending.Len() > 0 {
		room := o.LeafBudget - len(done) - pending.Len()
		if room < 1 {
			break
		}
		c := heap.Pop(pending).(shortItem).c
		k := 2
		if c.size() > wideSplit {
			k = 3
		}
		parts := bisect(s, c, min(k, room+1))
		if len(parts) < 2 {
			done = append(done, c) // members coincide; nothing to cut
			continue
		}
		cut = true
		for _, p := range parts {
			queue(p)
		}
	}
	for _, p := range *pending {
		done = append(done, p.c)
	}
	return done, cut
}

// shortfall is how far c's coherence is below what its size calls for;
// positive means c is due for a split.
func shortfall(c *cluster, o Options) float64 {
	return requiredCoherence(c.size(), o) - c.coherence()
}

func splitDue(m int, coherence float64, o Options) bool {
	return coherence < requiredCoherence(m, o)
}

// requiredCoherence is 003's tiered rule: the larger the leaf, the more alike
// its members must be to stay whole; two memories are never split (-2 is
// below any coherence).
func requiredCoherence(m int, o Options) float64 {
	switch {
	case m <= 2:
		return -2
	case m > o.MaxLeafSize:
		return o.LargeLeafSim
	case m > o.MaxLeafSize/2:
		return o.MediumLeafSim
	default:
		return o.MinInternalSim
	}
}

// bisect cuts c into up to k non-empty clusters by spherical k-means.
func bisect(s *space, c *cluster, k int) []*cluster {
	m := c.size()
	vs := make([][]float32, m)
	for i, idx := range c.members {
		vs[i] = s.vec(idx)
	}
	rng := seededRand("split", s.items[c.members[0]].ID, s.items[c.members[m-1]].ID, strconv.Itoa(m))
	assign := kmeans(vs, k, rng)
	groups := make([][]int, k)
	for i, g := range assign {
		groups[g] = append(groups[g], c.members[i])
	}
	var out []*cluster
	for _, g := range groups {
		if len(g) > 0 {
			out = append(out, newCluster(s, g))
		}
	}
	return out
}

type shortItem struct {
	c        *cluster
	priority float64
}

// shortfallHeap pops the highest priority first; ties go to the cluster with
// the lowest first member, so the order is fixed.
type shortfallHeap []shortItem

func (h shortfallHeap) Len() int { return len(h) }
func (h shortfallHeap) Less(i, j int) bool {
	if h[i].priority != h[j].priority {
		return h[i].priority > h[j].priority
	}
	return h[i].c.members[0] < h[j].c.members[0]
}
func (h shortfallHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *shortfallHeap) Push(x any)   { *h = append(*h, x.(shortItem)) }
func (h *shortfallHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
