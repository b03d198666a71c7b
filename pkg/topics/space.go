package topics

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// space holds the usable items in id order with their unit vectors in one
// flat slice, so that passes over them stay in cache.
type space struct {
	dim   int
	vecs  []float32
	items []Item // Vector is not used after newSpace
}

func (s *space) n() int { return len(s.items) }

func (s *space) vec(i int) []float32 {
	return s.vecs[i*s.dim : (i+1)*s.dim : (i+1)*s.dim]
}

// newSpace keeps the items that can be placed: a non-empty id, a finite
// non-zero vector of the most common dimension, one item per id (the same
// one whatever the input order).
func newSpace(items []Item) *space {
	usable := make([]Item, 0, len(items))
	for _, it := range items {
		if it.ID != "" && usableVector(it.Vector) {
			usable = append(usable, it)
		}
	}
	slices.SortFunc(usable, compareItems)
	usable = slices.CompactFunc(usable, func(a, b Item) bool { return a.ID == b.ID })

	dims := map[int]int{}
	for _, it := range usable {
		dims[len(it.Vector)]++
	}
	dim, best := 0, 0
	for d, c := range dims {
		if c > best || (c == best && d < dim) {
			dim, best = d, c
		}
	}

	s := &space{dim: dim, vecs: make([]float32, 0, best*dim), items: make([]Item, 0, best)}
	for _, it := range usable {
		if len(it.Vector) != dim {
			continue
		}
		var n float64
		for _, x := range it.Vector {
			n += float64(x) * float64(x)
		}
		n = math.Sqrt(n)
		for _, x := range it.Vector {
			s.vecs = append(s.vecs, float32(float64(x)/n))
		}
		it.Vector = nil
		s.items = append(s.items, it)
	}
	return s
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

// compareItems orders by id and, among duplicates of one id, by everything
// else, so the kept duplicate does not depend on input order.
func compareItems(a, b Item) int {
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if c := strings.Compare(a.Text, b.Text); c != 0 {
		return c
	}
	if c := strings.Compare(a.Domain, b.Domain); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Importance, b.Importance); c != 0 {
		return c
	}
	return slices.Compare(a.Vector, b.Vector)
}
