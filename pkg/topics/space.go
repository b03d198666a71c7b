package topics

import (
	"math"
	"slices"
)

// space holds the usable items in id order with their unit vectors, as
// 8-bit codes (see vectors).
type space struct {
	dim   int
	vecs  *vectors // nil once clustering is done
	items []entry
}

func (s *space) n() int { return len(s.items) }

// load writes item i's unit vector into buf (of length dim) and returns it.
func (s *space) load(i int, buf []float32) []float32 { return s.vecs.load(int32(i), buf) }

// vec returns a copy of item i's unit vector.
func (s *space) vec(i int) []float32 { return s.load(i, make([]float32, s.dim)) }

// loadAll decodes the members' vectors into one allocation.
func (s *space) loadAll(members []int) [][]float32 {
	flat := make([]float32, len(members)*s.dim)
	out := make([][]float32, len(members))
	for k, i := range members {
		out[k] = s.load(i, flat[k*s.dim:(k+1)*s.dim:(k+1)*s.dim])
	}
	return out
}

// dot is item i's similarity to the vector c, decoding as it goes.
func (s *space) dot(i int, c []float32) float32 {
	code, scale := s.vecs.code(int32(i))
	return dotCode(code, c) * scale
}

// addTo adds item i's unit vector to sum.
func (s *space) addTo(sum []float64, i int) {
	code, scale := s.vecs.code(int32(i))
	for j, q := range code {
		sum[j] += float64(float32(q) * scale)
	}
}

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

// vectors stores unit vectors of one dimension in fixed-size blocks, each
// as 8-bit codes and a scale: a quarter of float32's size, so that a
// tenant of a million 384-dimension memories needs under 400 MB for them.
// The codes are the vector over its largest component times 127, rounded;
// the scale makes the decoded vector unit length again. A cosine computed
// from decoded vectors is within about 0.001 of the exact one, far below
// the steps between the clustering thresholds.
type vectors struct {
	dim    int
	n      int
	blocks [][]int8
	scales []float32
}

// add stores v scaled to unit length and returns its slot; v must be
// usable (see usableVector) and of the store's dimension.
func (vs *vectors) add(v []float32) int32 {
	if vs.n%vectorBlock == 0 {
		vs.blocks = append(vs.blocks, make([]int8, 0, vectorBlock*vs.dim))
	}
	var n, top float64
	for _, x := range v {
		n += float64(x) * float64(x)
		top = max(top, math.Abs(float64(x)))
	}
	b := &vs.blocks[len(vs.blocks)-1]
	var sq float64
	for _, x := range v {
		q := math.Round(float64(x) / top * 127)
		*b = append(*b, int8(q))
		sq += q * q
	}
	vs.scales = append(vs.scales, float32(1/math.Sqrt(sq)))
	vs.n++
	return int32(vs.n - 1)
}

func (vs *vectors) code(slot int32) ([]int8, float32) {
	b := vs.blocks[slot/vectorBlock]
	o := int(slot%vectorBlock) * vs.dim
	return b[o : o+vs.dim : o+vs.dim], vs.scales[slot]
}

// load decodes the vector at slot into buf and returns it.
func (vs *vectors) load(slot int32, buf []float32) []float32 {
	code, scale := vs.code(slot)
	buf = buf[:len(code)]
	for j, q := range code {
		buf[j] = float32(q) * scale
	}
	return buf
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
	tmp := make([]int8, vs.dim)
	done := used
	clear(done)
	for start := range src {
		if done[start] || src[start] == int32(start) {
			continue
		}
		code, scale := vs.code(int32(start))
		copy(tmp, code)
		at := start
		for {
			done[at] = true
			from := int(src[at])
			to, _ := vs.code(int32(at))
			if from == start {
				copy(to, tmp)
				vs.scales[at] = scale
				break
			}
			code, _ := vs.code(int32(from))
			copy(to, code)
			vs.scales[at] = vs.scales[from]
			at = from
		}
	}
	for r := range es {
		es[r].slot = int32(r)
	}
	vs.n = m
	vs.scales = slices.Clip(vs.scales[:m])
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
