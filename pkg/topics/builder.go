package topics

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Builder collects a tenant's memories one at a time, as a store scroll
// hands them over, and builds their topic tree. It keeps one unit-length
// float32 copy of each usable vector, so the caller need not hold every
// memory with its vector: a rebuild then needs the vectors' size once, not
// twice. A Builder builds one tree; it is not safe for concurrent use.
type Builder struct {
	entries []entry
	vecs    map[int]*vectors // by dimension
	built   bool
	tree    Tree
}

// entry is an item without its vector, which lives in the builder's store
// of its dimension at slot.
type entry struct {
	ID, Text, Domain string
	Importance       float64
	dim, slot        int32
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{vecs: map[int]*vectors{}}
}

// Add takes one memory; it copies what it keeps, so the caller may reuse
// it.Vector. Items that cannot be placed (no id, no usable vector) are left
// out, as Build leaves them out; Add after Build is ignored.
func (b *Builder) Add(it Item) {
	if b.built || it.ID == "" || !usableVector(it.Vector) {
		return
	}
	d := len(it.Vector)
	vs := b.vecs[d]
	if vs == nil {
		vs = &vectors{dim: d}
		b.vecs[d] = vs
	}
	b.entries = append(b.entries, entry{ID: it.ID, Text: it.Text, Domain: it.Domain, Importance: it.Importance,
		dim: int32(d), slot: vs.add(it.Vector)})
}

// Build clusters the memories added into a topic tree, exactly as the
// package-level Build does with the same items, and lets the vectors go.
// Zero or out-of-range options take defaults. Called again, it returns the
// same tree.
func (b *Builder) Build(tenant string, opts Options, now time.Time) Tree {
	if !b.built {
		b.tree = build(tenant, b.space(), opts, now)
	}
	return b.tree
}

// Text returns, after Build, the text of a memory the tree holds.
func (b *Builder) Text(id string) (string, bool) {
	if !b.built {
		return "", false
	}
	i, ok := slices.BinarySearchFunc(b.entries, id, func(e entry, id string) int { return strings.Compare(e.ID, id) })
	if !ok {
		return "", false
	}
	return b.entries[i].Text, true
}

// space puts the entries in id order, keeps one per id (the same one
// whatever the input order) and those of the most common dimension among
// them, and drops the vectors of other dimensions.
func (b *Builder) space() *space {
	b.built = true
	es := b.entries
	slices.SortFunc(es, b.compare)
	es = slices.CompactFunc(es, func(x, y entry) bool { return x.ID == y.ID })
	dims := map[int32]int{}
	for _, e := range es {
		dims[e.dim]++
	}
	var dim int32
	best := 0
	for d, c := range dims {
		if c > best || (c == best && d < dim) {
			dim, best = d, c
		}
	}
	es = slices.DeleteFunc(es, func(e entry) bool { return e.dim != dim })
	b.entries = slices.Clip(es)
	vs := b.vecs[int(dim)]
	b.vecs = nil
	if vs != nil {
		vs.order(b.entries)
	}
	return &space{dim: int(dim), vecs: vs, items: b.entries}
}

// compare orders by id and, among duplicates of one id, by everything else,
// so the kept duplicate does not depend on input order.
func (b *Builder) compare(x, y entry) int {
	if c := strings.Compare(x.ID, y.ID); c != 0 {
		return c
	}
	if c := strings.Compare(x.Text, y.Text); c != 0 {
		return c
	}
	if c := strings.Compare(x.Domain, y.Domain); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Importance, y.Importance); c != 0 {
		return c
	}
	return slices.Compare(b.vecs[int(x.dim)].at(x.slot), b.vecs[int(y.dim)].at(y.slot))
}
