package local

import (
	"slices"
	"sync"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/store"
)

// lexIndex is a partition's inverted index for BM25: for every term hash,
// the documents holding it with their stored TF weight (the values of
// lexical.MemoryVector). A partition's rows move when one is removed, so
// postings name a document by a number that stays put, mapped to and from
// rows. Removing or rewriting a document only marks its number dead: a
// posting list drops dead entries once they are half of it, and numbers are
// compacted once most of them are dead, so upkeep is amortised O(1) per
// posting. Mutated under the partition's write lock; read under its read
// lock.
type lexIndex struct {
	terms   map[uint32]*postings
	rowDoc  []uint32  // row → document number
	docRow  []int32   // document number → row, or -1 once dead
	indexed int       // live documents with at least one term: N of the IDF
	dead    int       // dead document numbers
	scratch sync.Pool // *pruneBuffers of maxScore
}

// postings lists the documents holding one term, numbers ascending.
type postings struct {
	docs []uint32
	ws   []float32
	dead int     // entries whose document number is dead
	max  float32 // no weight in ws is above it: raised on add, never lowered
}

// renumberMin is the fewest dead document numbers worth a renumbering.
const renumberMin = 1024

func newLexIndex() *lexIndex {
	return &lexIndex{terms: make(map[uint32]*postings)}
}

// add indexes v as row's document: a new row (row == number of rows) or one
// whose previous document was killed.
func (x *lexIndex) add(row int, v lexical.SparseVector) {
	doc := uint32(len(x.docRow))
	x.docRow = append(x.docRow, int32(row))
	if row == len(x.rowDoc) {
		x.rowDoc = append(x.rowDoc, doc)
	} else {
		x.rowDoc[row] = doc
	}
	if v.Len() > 0 {
		x.indexed++
	}
	for i, t := range v.Indices {
		pl := x.terms[t]
		if pl == nil {
			pl = &postings{}
			x.terms[t] = pl
		}
		pl.docs = append(pl.docs, doc)
		pl.ws = append(pl.ws, v.Values[i])
		pl.max = max(pl.max, v.Values[i])
	}
}

// kill marks row's document dead; v is the vector it was added with.
func (x *lexIndex) kill(row int, v lexical.SparseVector) {
	doc := x.rowDoc[row]
	x.docRow[doc] = -1
	x.dead++
	if v.Len() > 0 {
		x.indexed--
	}
	for _, t := range v.Indices {
		pl := x.terms[t]
		if pl == nil {
			continue // cannot happen while v is what was added
		}
		pl.dead++
		switch {
		case pl.dead >= len(pl.docs):
			delete(x.terms, t)
		case 2*pl.dead > len(pl.docs):
			pl.compact(x.docRow)
		}
	}
}

// remove drops row's document (added with v) and moves the last row's into
// its place, as the partition does with its records.
func (x *lexIndex) remove(row int, v lexical.SparseVector) {
	x.kill(row, v)
	last := len(x.rowDoc) - 1
	if row != last {
		x.rowDoc[row] = x.rowDoc[last]
		x.docRow[x.rowDoc[row]] = int32(row)
	}
	x.rowDoc = x.rowDoc[:last]
	if x.dead >= renumberMin && x.dead > len(x.rowDoc) {
		x.renumber()
	}
}

// replace re-indexes row with v after its document (added with old) changed.
func (x *lexIndex) replace(row int, old, v lexical.SparseVector) {
	x.kill(row, old)
	x.add(row, v)
	if x.dead >= renumberMin && x.dead > len(x.rowDoc) {
		x.renumber()
	}
}

// compact drops the entries of dead documents.
func (pl *postings) compact(docRow []int32) {
	n := 0
	for i, d := range pl.docs {
		if docRow[d] >= 0 {
			pl.docs[n], pl.ws[n] = d, pl.ws[i]
			n++
		}
	}
	pl.docs, pl.ws = shrink(pl.docs[:n]), shrink(pl.ws[:n])
	pl.dead = 0
}

// shrink gives back a slice's spare capacity once it is mostly unused.
func shrink[T any](s []T) []T {
	if cap(s) > 64 && len(s) < cap(s)/4 {
		return append([]T(nil), s...)
	}
	return s
}

// renumber gives the live documents consecutive numbers in their old order,
// so every posting list stays sorted, and forgets the dead ones.
func (x *lexIndex) renumber() {
	next := make([]uint32, len(x.docRow))
	n := uint32(0)
	for d, row := range x.docRow {
		if row >= 0 {
			next[d] = n
			n++
		}
	}
	for _, pl := range x.terms {
		k := 0
		for i, d := range pl.docs {
			if x.docRow[d] >= 0 {
				pl.docs[k], pl.ws[k] = next[d], pl.ws[i]
				k++
			}
		}
		pl.docs, pl.ws = shrink(pl.docs[:k]), shrink(pl.ws[:k])
		pl.dead = 0
	}
	docRow := make([]int32, n)
	for d, row := range x.docRow {
		if row >= 0 {
			docRow[next[d]] = row
			x.rowDoc[row] = next[d]
		}
	}
	x.docRow, x.dead = docRow, 0
}

// score adds each document's BM25 score for the query q to acc, indexed by
// document number (len(acc) ≥ len(x.docRow)). Terms are taken in q's order,
// so a document's sum is the same whatever its number.
func (x *lexIndex) score(q lexical.SparseVector, acc []float32) {
	for i, t := range q.Indices {
		pl := x.terms[t]
		if pl == nil {
			continue
		}
		idf := x.queryWeight(pl, q.Values[i])
		ws := pl.ws[:len(pl.docs)]
		for j, d := range pl.docs {
			acc[d] += idf * ws[j]
		}
	}
}

// queryWeight is what a posting's weight of the term pl lists is
// multiplied by for a query holding the term with weight v: its IDF over
// the live documents, times v. Every scoring path uses it, so their sums
// agree bit for bit.
func (x *lexIndex) queryWeight(pl *postings, v float32) float32 {
	return float32(lexical.IDF(x.indexed, len(pl.docs)-pl.dead)) * v
}

// postingsOf counts the postings of q's terms: the documents a scoring
// visits, with repeats.
func (x *lexIndex) postingsOf(q lexical.SparseVector) int {
	n := 0
	for _, t := range q.Indices {
		if pl := x.terms[t]; pl != nil {
			n += len(pl.docs)
		}
	}
	return n
}

// scoreSparse is score for a zeroed acc that also appends to docs each
// document it gave a score, once, and returns docs. Every BM25 term
// weight is positive, so a document is new exactly when its sum is still
// zero.
func (x *lexIndex) scoreSparse(q lexical.SparseVector, acc []float32, docs []uint32) []uint32 {
	for i, t := range q.Indices {
		pl := x.terms[t]
		if pl == nil {
			continue
		}
		idf := x.queryWeight(pl, q.Values[i])
		ws := pl.ws[:len(pl.docs)]
		for j, d := range pl.docs {
			if acc[d] == 0 {
				docs = append(docs, d)
			}
			acc[d] += idf * ws[j]
		}
	}
	return docs
}

// bytes estimates the index's heap footprint.
func (x *lexIndex) bytes() int {
	const mapEntry = 4 + 8 + 8 // key, pointer, bucket overhead (about)
	const postingsHeader = 2*24 + 8
	n := 4*cap(x.rowDoc) + 4*cap(x.docRow)
	for _, pl := range x.terms {
		n += mapEntry + postingsHeader + 4*cap(pl.docs) + 4*cap(pl.ws)
	}
	return n
}

// markTerms sets hits[i].Terms to whether row best[i].row's document holds
// one of qv's terms: a binary search of each term's postings, where
// reading the memory's text again costs a tokenisation and stemming of all
// of it (the term check of recall's dense-only hits was 5% of a recall's
// CPU). The caller holds p.mu.RLock.
func (x *lexIndex) markTerms(qv lexical.SparseVector, best []cand, hits []store.Hit) {
	lists := make([][]uint32, 0, len(qv.Indices))
	for _, t := range qv.Indices {
		if pl := x.terms[t]; pl != nil {
			lists = append(lists, pl.docs)
		}
	}
	for i, c := range best {
		hits[i].Terms = store.TermsNone
		if c.row >= len(x.rowDoc) {
			continue
		}
		doc := x.rowDoc[c.row]
		for _, docs := range lists {
			if _, ok := slices.BinarySearch(docs, doc); ok {
				hits[i].Terms = store.TermsSome
				break
			}
		}
	}
}
