package local

import "math"

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
	lists  [][]int32
	where  []int32 // row -> list, -1 for a row without a vector
	pos    []int32 // row -> index in lists[where[row]]
	n      int     // rows covered
	// trained is how many vectors the partition held when the centroids
	// were trained; a partition grown well past it is retrained.
	trained int
	// scratch for assign (used under the partition's write lock, or by the
	// builder alone).
	qbuf []int16
	dots []int32
}

// newIVF returns an empty index (covering no row) with the given unit
// centroids.
func newIVF(dim int, cents []float32, trained int) *ivfIndex {
	nlist := len(cents) / dim
	x := &ivfIndex{dim: dim, nlist: nlist, cents: cents, ccodes: make([]int8, len(cents)),
		cscale: make([]float32, nlist), iota: make([]int32, nlist), lists: make([][]int32, nlist),
		trained: trained, qbuf: make([]int16, dim), dots: make([]int32, nlist)}
	for c := range nlist {
		x.cscale[c] = quantizeRow(x.ccodes[c*dim:(c+1)*dim], cents[c*dim:(c+1)*dim])
		x.iota[c] = int32(c)
	}
	return x
}

// nearest returns the list whose centroid is nearest to vec (unit, dim
// long), by the int8 kernel: buf and dots are scratch of dim and nlist.
func (x *ivfIndex) nearest(vec []float32, buf []int16, dots []int32) int32 {
	quantizeQueryInto(buf, vec)
	dotsInt8Kernel()(buf, x.ccodes, x.iota, dots)
	best, bestScore := int32(0), float32(math.Inf(-1))
	for c, d := range dots {
		if s := float32(d) * x.cscale[c]; s > bestScore {
			best, bestScore = int32(c), s
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
		x.put(i, x.nearest(vec, x.qbuf, x.dots))
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

// quantizeQueryInto is quantizeQuery writing into out (len(v) long).
func quantizeQueryInto(out []int16, v []float32) {
	qmax := float32(min(math.MaxInt16, math.MaxInt32/(max(1, len(v))*127)))
	var peak float32
	for _, x := range v {
		peak = max(peak, x, -x)
	}
	if peak == 0 {
		clear(out)
		return
	}
	inv := qmax / peak
	for j, x := range v {
		out[j] = int16(math.Round(float64(x * inv)))
	}
}
