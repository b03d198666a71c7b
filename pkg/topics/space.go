package topics

import (
	"math"
)

// space holds the usable items in id order with their unit vectors.
type space struct {
	dim   int
	vecs  *vectors // nil once clustering is done
	items []entry
}

func (s *space) n() int { return len(s.items) }

func (s *space) vec(i int) []float32 { return s.vecs.at(s.items[i].slot) }

// dropVectors lets the vectors go once the leaves are made: what follows
// (hierarchy, names, export) works from cluster sums and centres, and the
// vectors are most of a build's memory.
func (s *space) dropVectors() { s.vecs = nil }

// newSpace keeps the items that can be placed: a non-empty id, a finite
// non-zero vector of the most common dimension, one item per id (the same
// one whatever the input order).
func newSpace(items []Item) *space {
	b := NewBuilder()
	for _, it := range items {
		b.Add(it)
	}
	return b.space()
}

// vectorBlock is how many vectors one block of a vector store holds: the
// store grows a block at a time and never copies what it already holds, so
// loading n vectors takes their size and no more.
const vectorBlock = 1024

// vectors stores unit vectors of one dimension in fixed-size blocks.
type vectors struct {
	dim    int
	n      int
	blocks [][]float32
}

// add stores v scaled to unit length and returns its slot; v must be
// usable (see usableVector) and of the store's dimension.
func (vs *vectors) add(v []float32) int32 {
	if vs.n%vectorBlock == 0 {
		vs.blocks = append(vs.blocks, make([]float32, 0, vectorBlock*vs.dim))
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	b := &vs.blocks[len(vs.blocks)-1]
	for _, x := range v {
		*b = append(*b, float32(float64(x)/n))
	}
	vs.n++
	return int32(vs.n - 1)
}

func (vs *vectors) at(slot int32) []float32 {
	b := vs.blocks[slot/vectorBlock]
	o := int(slot%vectorBlock) * vs.dim
	return b[o : o+vs.dim : o+vs.dim]
}

func usableVector(v []float32) bool {
	if len(v) == 0 {
		return false
	}
	nonZero := false
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		if x != 0 {
			nonZero = true
		}
	}
	return nonZero
}
