package local

import (
	"math"
	"slices"
)

// ivfIndex is an inverted-file index over a partition's rows: nlist unit
// centroids, and for each the rows whose vector is nearest to it. A search
// scores the centroids, then int8-scores only the rows of the nearest
// lists (see search_ivf.go). Membership is exact: every row below n that
// has a vector is in exactly one list, and upsert and remove keep it so
// under the partition's write lock. It is derived state: rebuilt when
// missing, saved beside snapshots (ivf_file.go) only to spare a reopen the
// training.
//
// A live index covers every row (n == len(recs)). An index being built in
// the background covers a growing prefix: the builder assigns rows n, n+1,
// ... under the partition's read lock, while writers keep the rows below
// n exact and leave the others to the builder.
type ivfIndex struct {
	dim   int
	nlist int
	cents []float32 // nlist unit centroids, back to back
	// ccodes and cscale are the centroids as int8 codes (as quantSlab
	// holds rows), so that assigning a row is one call of the int8 kernel.
	ccodes []int8
	cscale []float32
	iota   []int32 // 0..nlist-1, the kernel's row list
	// Assigning a row compares it with the centroids of the few groups
	// (of about √nlist centroids each) whose centre is nearest, not with
	// every centroid: a write then costs about 4√nlist int8 dots instead
	// of nlist. gcodes and gscale are the groups' centres as int8 codes,
	// members their centroids. No groups (flat assignment) for a small
	// nlist.
	gcodes  []int8
	gscale  []float32
	giota   []int32
	members [][]int32
	lists   [][]int32
	where   []int32 // row -> list, -1 for a row without a vector
	pos     []int32 // row -> index in lists[where[row]]
	n       int     // rows covered
	// trained is how many vectors the partition held when the centroids
	// were trained; a partition grown well past it is retrained.
	trained int
	// as is assign's scratch (used under the partition's write lock).
	as *assigner
}

const (
	// ivfGroupMin is the fewest lists that are grouped for assignment.
	ivfGroupMin = 256
	// ivfAssignGroups is how many nearest groups an assignment searches.
	ivfAssignGroups = 4
	// ivfGroupRounds is how many k-means rounds group the centroids.
	ivfGroupRounds = 6
)

// assigner is scratch for nearest: one per goroutine assigning rows.
type assigner struct {
	buf   []int16
	dots  []int32
	gdots []int32
	cand  []int32
	top   []int32
}

func (x *ivfIndex) newAssigner() *assigner {
	return &assigner{buf: make([]int16, x.dim), dots: make([]int32, x.nlist), gdots: make([]int32, len(x.members)),
		cand: make([]int32, 0, x.nlist)}
}

// newIVF returns an empty index (covering no row) with the given unit
// centroids.
func newIVF(dim int, cents []float32, trained int) *ivfIndex {
	nlist := len(cents) / dim
	x := &ivfIndex{dim: dim, nlist: nlist, cents: cents, ccodes: make([]int8, len(cents)),
		cscale: make([]float32, nlist), iota: make([]int32, nlist), lists: make([][]int32, nlist),
		trained: trained}
	for c := range nlist {
		x.cscale[c] = quantizeRow(x.ccodes[c*dim:(c+1)*dim], cents[c*dim:(c+1)*dim])
		x.iota[c] = int32(c)
	}
	if nlist >= ivfGroupMin {
		x.group()
	}
	x.as = x.newAssigner()
	return x
}

// group clusters the centroids into about √nlist groups (spherical
// k-means from evenly spaced seeds, so the same centroids always give the
// same groups: a reopened index assigns as the saved one did).
func (x *ivfIndex) group() {
	dim, ng := x.dim, int(math.Round(math.Sqrt(float64(x.nlist))))
	gcents := make([]float32, ng*dim)
	for g := range ng {
		c := g * x.nlist / ng
		copy(gcents[g*dim:(g+1)*dim], x.cents[c*dim:(c+1)*dim])
	}
	x.gcodes, x.gscale, x.giota = make([]int8, ng*dim), make([]float32, ng), make([]int32, ng)
	for g := range ng {
		x.giota[g] = int32(g)
	}
	of := make([]int, x.nlist)
	buf, dots := make([]int16, dim), make([]int32, ng)
	kernel := dotsInt8Kernel()
	for round := 0; ; round++ {
		for g := range ng {
			x.gscale[g] = quantizeRow(x.gcodes[g*dim:(g+1)*dim], gcents[g*dim:(g+1)*dim])
		}
		for c := range x.nlist {
			quantizeQueryInto(buf, x.cents[c*dim:(c+1)*dim])
			kernel(buf, x.gcodes, x.giota, dots)
			of[c] = argmaxScaled(dots, x.gscale)
		}
		if round == ivfGroupRounds {
			break
		}
		clear(gcents)
		for c, g := range of {
			sum := gcents[g*dim : (g+1)*dim]
			for j, v := range x.cents[c*dim : (c+1)*dim] {
				sum[j] += v
			}
		}
		for g := range ng {
			normalizeInPlace(gcents[g*dim : (g+1)*dim]) // an empty group stays zero: it never wins
		}
	}
	x.members = make([][]int32, ng)
	for c, g := range of {
		x.members[g] = append(x.members[g], int32(c))
	}
}

// argmaxScaled is the index of the best dots[i]·scale[i] (the first of
// equals).
func argmaxScaled(dots []int32, scale []float32) int {
	best, bestScore := 0, float32(math.Inf(-1))
	for i, d := range dots {
		if s := float32(d) * scale[i]; s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// nearest returns the list whose centroid is nearest to vec (unit, dim
// long) by the int8 kernel: among all centroids for a small index, else
// among those of the ivfAssignGroups nearest groups.
func (x *ivfIndex) nearest(vec []float32, a *assigner) int32 {
	quantizeQueryInto(a.buf, vec)
	kernel := dotsInt8Kernel()
	if len(x.members) == 0 {
		kernel(a.buf, x.ccodes, x.iota, a.dots)
		return int32(argmaxScaled(a.dots, x.cscale))
	}
	kernel(a.buf, x.gcodes, x.giota, a.gdots)
	// The nearest groups, by selection: there are few.
	a.top = a.top[:0]
	for range min(ivfAssignGroups, len(x.members)) {
		best, bestScore := -1, float32(math.Inf(-1))
		for g, d := range a.gdots {
			if s := float32(d) * x.gscale[g]; s > bestScore && !slices.Contains(a.top, int32(g)) {
				best, bestScore = g, s
			}
		}
		a.top = append(a.top, int32(best))
	}
	a.cand = a.cand[:0]
	for _, g := range a.top {
		a.cand = append(a.cand, x.members[g]...)
	}
	if len(a.cand) == 0 {
		kernel(a.buf, x.ccodes, x.iota, a.dots)
		return int32(argmaxScaled(a.dots, x.cscale))
	}
	dots := a.dots[:len(a.cand)]
	kernel(a.buf, x.ccodes, a.cand, dots)
	best, bestScore := a.cand[0], float32(math.Inf(-1))
	for j, d := range dots {
		if s := float32(d) * x.cscale[a.cand[j]]; s > bestScore {
			best, bestScore = a.cand[j], s
		}
	}
	return best
}

// grow makes room for row i in where and pos.
func (x *ivfIndex) grow(i int) {
	for len(x.where) <= i {
		x.where = append(x.where, -1)
		x.pos = append(x.pos, 0)
	}
}

// put adds row i (not in any list) to list l.
func (x *ivfIndex) put(i int, l int32) {
	x.where[i], x.pos[i] = l, int32(len(x.lists[l]))
	x.lists[l] = append(x.lists[l], int32(i))
}

// drop takes row i out of its list, if in one.
func (x *ivfIndex) drop(i int) {
	l := x.where[i]
	if l < 0 {
		return
	}
	list := x.lists[l]
	p, last := x.pos[i], len(list)-1
	if int(p) != last {
		moved := list[last]
		list[p] = moved
		x.pos[moved] = p
	}
	x.lists[l] = list[:last]
	x.where[i] = -1
}

// assign puts row i, now holding vec (nil: no vector), in its list.
func (x *ivfIndex) assign(i int, vec []float32) {
	x.drop(i)
	if len(vec) == x.dim {
		x.put(i, x.nearest(vec, x.as))
	}
}

// set follows row i taking vec (nil: none). A live index extends over a
// new row; a building one ignores rows it does not cover yet.
func (x *ivfIndex) set(i int, vec []float32, live bool) {
	switch {
	case i < x.n:
		x.assign(i, vec)
	case i == x.n && live:
		x.grow(i)
		x.n++
		x.assign(i, vec)
	}
}

// removeRow follows the partition moving row last into row i and dropping
// row last; vec is row i's vector after the move (nil: none, or i == last).
func (x *ivfIndex) removeRow(i, last int, vec []float32) {
	if i < x.n {
		x.drop(i)
	}
	if i != last {
		switch {
		case last < x.n:
			if l := x.where[last]; l >= 0 {
				x.lists[l][x.pos[last]] = int32(i)
				x.where[i], x.pos[i] = l, x.pos[last]
				x.where[last] = -1
			}
		case i < x.n:
			x.assign(i, vec) // the moved row was not covered yet
		}
	}
	if x.n > last {
		x.n = last
		x.where, x.pos = x.where[:last], x.pos[:last]
	}
}

// rows counts the rows in lists.
func (x *ivfIndex) rows() int {
	n := 0
	for _, l := range x.lists {
		n += len(l)
	}
	return n
}

// quantizeQueryInto is quantizeQuery writing into out (len(v) long),
// in float32 only: it runs for every row an index assigns.
func quantizeQueryInto(out []int16, v []float32) {
	qmax := float32(min(math.MaxInt16, math.MaxInt32/(max(1, len(v))*127)))
	var peak float32
	for _, x := range v {
		// A plain comparison: max on floats also orders NaNs and zeros,
		// which costs more than the rest of the loop.
		if a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31)); a > peak {
			peak = a
		}
	}
	if peak == 0 {
		clear(out)
		return
	}
	inv := qmax / peak
	out = out[:len(v)]
	for j, x := range v {
		// |x·inv| <= qmax < 2²², so the float32 rounding trick of
		// quantizeRow applies (ties may round differently from
		// math.Round: both are as good a code).
		out[j] = int16((x*inv + roundMagic) - roundMagic)
	}
}
