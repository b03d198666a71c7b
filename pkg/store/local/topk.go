package local

import "sort"

// cand is a scored row of a partition.
type cand struct {
	score float32
	row   int
}

// topK keeps the k best candidates in a min-heap whose root is the worst.
// Equal scores rank by ascending id, so results do not depend on row order.
type topK struct {
	k     int
	items []cand
	id    func(row int) string
}

func newTopK(k int, id func(row int) string) *topK {
	return &topK{k: k, items: make([]cand, 0, min(k, 1024)), id: id}
}

// better reports whether a ranks above b.
func (t *topK) better(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.id(a.row) < t.id(b.row)
}

// admits reports whether push would keep c, so that a caller can skip
// costlier checks for candidates that would not make it.
func (t *topK) admits(c cand) bool {
	return len(t.items) < t.k || t.better(c, t.items[0])
}

func (t *topK) push(c cand) {
	if len(t.items) < t.k {
		t.items = append(t.items, c)
		t.up(len(t.items) - 1)
		return
	}
	if !t.better(c, t.items[0]) {
		return
	}
	t.items[0] = c
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !t.better(t.items[parent], t.items[i]) {
			return
		}
		t.items[parent], t.items[i] = t.items[i], t.items[parent]
		i = parent
	}
}

func (t *topK) down(i int) {
	n := len(t.items)
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < n && t.better(t.items[worst], t.items[l]) {
			worst = l
		}
		if r < n && t.better(t.items[worst], t.items[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.items[i], t.items[worst] = t.items[worst], t.items[i]
		i = worst
	}
}

// sorted returns the candidates best first.
func (t *topK) sorted() []cand {
	out := append([]cand(nil), t.items...)
	sort.Slice(out, func(i, j int) bool { return t.better(out[i], out[j]) })
	return out
}
