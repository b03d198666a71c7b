package local

import (
	"math"
	"slices"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// MaxScore (Turtle & Flood, 1995): walk the query terms' posting lists
// together in document order while keeping a threshold, the k-th best score
// admitted so far. Terms sorted by their bound (IDF times the list's largest
// weight) split into non-essential ones, whose bounds together fall short of
// the threshold, and essential ones: a document only in non-essential lists
// cannot make the top k, so candidates come from the essential lists alone
// and the others are only searched for a candidate's weights, and not even
// that once the bounds left cannot lift it to the threshold. As the
// threshold rises, common terms (low IDF, long lists) become non-essential
// and most of their postings are never read.

// pruneCursor walks one query term's posting list.
type pruneCursor struct {
	docs []uint32
	ws   []float32
	pos  int
	idf  float32 // IDF times query weight, exactly as score computes it
	ub   float64 // bound of the term's part of any score: idf·max weight
	qi   int     // the term's position in the query
}

// seek moves c to its first document ≥ d (galloping, then binary search)
// and returns how many postings it looked at.
func (c *pruneCursor) seek(d uint32) int {
	if c.pos >= len(c.docs) || c.docs[c.pos] >= d {
		return 1
	}
	lo, step, looked := c.pos, 1, 1 // docs[lo] < d
	hi := lo + 1
	for hi < len(c.docs) && c.docs[hi] < d {
		lo, step, looked = hi, 2*step, looked+1
		hi = lo + step
	}
	hi = min(hi, len(c.docs))
	i, _ := slices.BinarySearch(c.docs[lo+1:hi], d)
	c.pos = lo + 1 + i
	return looked + bitsLen(hi-lo-1)
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// boundSlack widens float64 bounds to cover the rounding of float32 scores:
// a sum of n positive float32 products, rounded at each step (fused or not),
// exceeds the exact sum by less than a factor (1+2⁻²⁴)^(2n) < 1+4n·2⁻²⁴.
func boundSlack(n int) float64 {
	return 1 + 4*float64(n+1)/(1<<24)
}

// maxScore scores the documents of q's terms that could make the top k,
// document at a time in ascending numbers, and calls admit(d, score) for
// each whose score reaches the threshold; admit reports whether the
// document entered the results (live and matching the filter): only those
// raise the threshold. A score is the one score gives the document, bit for
// bit: its terms summed in q's order. Every document that belongs in the
// top k, ties included, is admitted. It returns the postings it read
// (posting entries visited in order plus those looked at by searches).
func (x *lexIndex) maxScore(q lexical.SparseVector, k int, admit func(d uint32, score float32) bool) int {
	var cursorBuf [16]pruneCursor
	cs := cursorBuf[:0]
	idfs := make([]float32, len(q.Indices)) // by query position
	for i, t := range q.Indices {
		pl := x.terms[t]
		if pl == nil {
			continue
		}
		idf := float32(lexical.IDF(x.indexed, len(pl.docs)-pl.dead)) * q.Values[i]
		idfs[i] = idf
		cs = append(cs, pruneCursor{docs: pl.docs, ws: pl.ws[:len(pl.docs)], idf: idf, ub: float64(idf) * float64(pl.max), qi: i})
	}
	n := len(cs)
	if n == 0 {
		return 0
	}
	slices.SortFunc(cs, func(a, b pruneCursor) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		}
		return 0
	})
	// upto[i]: bound of what terms cs[:i+1] can add together, widened.
	slack := boundSlack(n)
	upto := make([]float64, n)
	sum := 0.0
	for i := range cs {
		sum += cs[i].ub
		upto[i] = sum * slack
	}
	w := make([]float32, len(q.Indices)) // the candidate's weights, by query position
	heap := make([]float32, 0, min(k, 4096))
	theta := float32(math.Inf(-1)) // k-th best admitted score
	theta64 := math.Inf(-1)
	ess := 0 // cs[:ess] are non-essential: upto[ess-1] < theta
	read := 0
	for {
		d := uint32(math.MaxUint32)
		for i := ess; i < n; i++ {
			if c := &cs[i]; c.pos < len(c.docs) && c.docs[c.pos] < d {
				d = c.docs[c.pos]
			}
		}
		if d == math.MaxUint32 {
			break
		}
		live := x.docRow[d] >= 0
		var s float64 // the candidate's weights found so far, in float64
		for i := ess; i < n; i++ {
			c := &cs[i]
			if c.pos < len(c.docs) && c.docs[c.pos] == d {
				if live {
					w[c.qi] = c.ws[c.pos]
					s += float64(c.idf) * float64(c.ws[c.pos])
				}
				c.pos++
				read++
			}
		}
		if !live {
			continue
		}
		// Add the non-essential terms, largest bound first, while the
		// bounds of those left could still lift s to the threshold.
		pass := true
		for i := ess - 1; i >= 0; i-- {
			if s*slack+upto[i] < theta64 {
				pass = false
				break
			}
			c := &cs[i]
			read += c.seek(d)
			if c.pos < len(c.docs) && c.docs[c.pos] == d {
				w[c.qi] = c.ws[c.pos]
				s += float64(c.idf) * float64(c.ws[c.pos])
			}
		}
		if pass {
			var score float32
			for i, wi := range w {
				score += idfs[i] * wi // absent terms add an exact 0
			}
			if score != 0 && score >= theta && admit(d, score) {
				heap = pushScore(heap, k, score)
				if len(heap) == k && heap[0] > theta {
					theta, theta64 = heap[0], float64(heap[0])
					for ess < n && upto[ess] < theta64 {
						ess++
					}
					if ess == n {
						break // not even a document with every term can reach theta
					}
				}
			}
		}
		clear(w)
	}
	return read
}

// pushScore keeps the k best scores in a min-heap (root the worst).
func pushScore(h []float32, k int, s float32) []float32 {
	i := len(h)
	if i < k {
		h = append(h, s)
		for i > 0 {
			parent := (i - 1) / 2
			if h[parent] <= h[i] {
				break
			}
			h[parent], h[i] = h[i], h[parent]
			i = parent
		}
		return h
	}
	if s <= h[0] {
		return h
	}
	h[0] = s
	for i = 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if h[i] <= h[l] {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	return h
}
