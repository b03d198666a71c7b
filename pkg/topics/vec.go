package topics

import (
	"math"
	"slices"
)

// dot is the inner product; unrolled by eight with separate sums because it
// is the inner loop of every pass.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}

// unit returns v scaled to length 1, or false when v has no direction or
// holds a non-finite value.
func unit(v []float64) ([]float32, bool) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, false
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out, true
}

// cluster is a set of memories with their vector sum, from which centroid,
// coherence and spread follow in O(d) without comparing pairs.
type cluster struct {
	members []int // ascending indices into the space
	sum     []float64
	norm    float64 // |sum|
}

func newCluster(s *space, members []int) *cluster {
	c := &cluster{members: members, sum: make([]float64, s.dim)}
	for _, i := range members {
		for j, x := range s.vec(i) {
			c.sum[j] += float64(x)
		}
	}
	c.refresh()
	return c
}

func (c *cluster) refresh() {
	var n float64
	for _, x := range c.sum {
		n += x * x
	}
	c.norm = math.Sqrt(n)
}

func (c *cluster) size() int { return len(c.members) }

// coherence is the mean cosine over all pairs of members: for unit vectors
// |Σv|² = m + Σ_{i≠j} vi·vj.
func (c *cluster) coherence() float64 {
	m := float64(len(c.members))
	if m < 2 {
		return 1
	}
	return (c.norm*c.norm - m) / (m * (m - 1))
}

// centroid is the unit mean direction; a cluster whose vectors cancel out
// gets the direction of its first member.
func (c *cluster) centroid(s *space) []float32 {
	if u, ok := unit(c.sum); ok {
		return u
	}
	return slices.Clone(s.vec(c.members[0]))
}

// absorb moves o's members into c.
func (c *cluster) absorb(o *cluster) {
	c.members = mergeSorted(c.members, o.members)
	for j, x := range o.sum {
		c.sum[j] += x
	}
	c.refresh()
}

// mergedCoherence is the coherence c would have after absorbing o.
func (c *cluster) mergedCoherence(o *cluster) float64 {
	var n float64
	for j := range c.sum {
		x := c.sum[j] + o.sum[j]
		n += x * x
	}
	m := float64(len(c.members) + len(o.members))
	if m < 2 {
		return 1
	}
	return (n - m) / (m * (m - 1))
}

func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
