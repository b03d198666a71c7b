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

func (s *space) vec(i int) []float32 { return s.vecs.at(int32(i)) }

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

// order moves, in place, the vector of es[r] to slot r for every r and
// drops the vectors no entry holds (duplicates, other dimensions), so
// that the vector of the space's item i is at slot i. The move follows
// the cycles of the permutation that sends the remaining slots to the
// tail, with one vector of scratch.
func (vs *vectors) order(es []entry) {
	m := len(es)
	src := make([]int32, vs.n) // slot r takes the vector at src[r]
	used := make([]bool, vs.n)
	for r, e := range es {
		src[r] = e.slot
		used[e.slot] = true
	}
	r := m
	for slot, u := range used {
		if !u {
			src[r] = int32(slot)
			r++
		}
	}
	tmp := make([]float32, vs.dim)
	done := used
	clear(done)
	for start := range src {
		if done[start] || src[start] == int32(start) {
			continue
		}
		copy(tmp, vs.at(int32(start)))
		at := start
		for {
			done[at] = true
			from := int(src[at])
			if from == start {
				copy(vs.at(int32(at)), tmp)
				break
			}
			copy(vs.at(int32(at)), vs.at(int32(from)))
			at = from
		}
	}
	for r := range es {
		es[r].slot = int32(r)
	}
	vs.n = m
	keep := (m + vectorBlock - 1) / vectorBlock
	clear(vs.blocks[keep:])
	vs.blocks = vs.blocks[:keep]
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
