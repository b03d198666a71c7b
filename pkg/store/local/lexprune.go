package local

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// MaxScore (Turtle & Flood, 1995) keeps a threshold, the k-th best score
// accepted so far, and sorts the query terms by their bound (IDF times the
// list's largest weight). The terms whose bounds together fall short of the
// threshold are non-essential: a document only in their lists cannot make
// the top k, so candidates come from the other, essential, lists, and the
// non-essential ones are only consulted for candidates that their bounds
// could still lift to the threshold. As the threshold rises, common terms
// (low IDF, long lists) become non-essential and most of their postings are
// never read.

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
	// Most moves are short: look at the next few before galloping.
	end := min(c.pos+8, len(c.docs))
	for j := c.pos + 1; j < end; j++ {
		if c.docs[j] >= d {
			looked := j - c.pos + 1
			c.pos = j
			return looked
		}
	}
	if end == len(c.docs) {
		looked := end - c.pos
		c.pos = end
		return looked
	}
	lo, step, looked := end-1, 1, end-c.pos // docs[lo] < d
	hi := lo + 1
	for hi < len(c.docs) && c.docs[hi] < d {
		lo, step, looked = hi, 2*step, looked+1
		hi = lo + step
	}
	hi = min(hi, len(c.docs))
	i, _ := slices.BinarySearch(c.docs[lo+1:hi], d)
	c.pos = lo + 1 + i
	return looked + bits.Len(uint(hi-lo-1))
}

// boundSlack widens float64 sums of bounds to cover float32 rounding: a
// float32 sum of n positive float32 products, rounded at each step (fused or
// not), is within a factor (1±2⁻²⁴)^(2n) of the exact sum, both for the
// partial sums the bounds start from and for the score they bound.
func boundSlack(n int) float64 {
	return 1 + 8*float64(n+1)/(1<<24)
}

// pruneWindow is how many document numbers maxScore scores at a time, a
// multiple of 64. A variable for the tests, which use small windows.
var pruneWindow uint32 = 2048

// maxScore calls add(d, score) for every document of q's terms that
// accept(d) (live and matching the filter) and whose score could make the
// top k, in ascending numbers; accept is only asked about documents whose
// exact score reaches the threshold, and a few in seedTheta. A score is the
// one score gives the document, bit for bit: its terms summed in q's order.
// Every document that belongs in the top k, ties included, is added. It
// returns the postings it read (entries scanned plus those looked at by
// searches).
//
// Documents are taken a window of numbers at a time, term at a time within
// it, as Lucene's MaxScoreBulkScorer does, so that inner loops stay as tight
// as score's: the essential terms' postings in the window are added into a
// window accumulator; the documents whose sum plus the bounds of the
// non-essential terms reaches the threshold survive; each non-essential
// term, largest bound first, adds its weights to the survivors (scanning
// its postings in the window, or searching them when survivors are few)
// and the survivors are cut again. The last survivors are scored exactly
// from the weights kept for the window, in q's order.
func (x *lexIndex) maxScore(q lexical.SparseVector, k int, accept func(d uint32) bool, add func(d uint32, score float32)) int {
	var cursorBuf [16]pruneCursor
	cs := cursorBuf[:0]
	for i, t := range q.Indices {
		pl := x.terms[t]
		if pl == nil {
			continue
		}
		idf := x.queryWeight(pl, q.Values[i])
		cs = append(cs, pruneCursor{docs: pl.docs, ws: pl.ws[:len(pl.docs)], idf: idf, ub: float64(idf) * float64(pl.max), qi: i})
	}
	n := len(cs)
	if n == 0 {
		return 0
	}
	slices.SortStableFunc(cs, func(a, b pruneCursor) int { return cmp.Compare(a.ub, b.ub) })
	byQ := make([]int, n) // cs indices in q's order
	for i := range byQ {
		byQ[i] = i
	}
	slices.SortFunc(byQ, func(a, b int) int { return cs[a].qi - cs[b].qi })
	// upto[i+1]: bound of what terms cs[:i+1] add together; upto[0] = 0.
	slack := boundSlack(n)
	upto := make([]float64, n+1)
	for i := range cs {
		upto[i+1] = upto[i] + cs[i].ub
	}
	win := pruneWindow
	words := int(win / 64)
	sc := x.pruneScratch(win, n)
	defer x.scratch.Put(sc)
	acc := sc.acc         // sums of the weights found so far
	live := sc.live       // the window's surviving documents
	termHit := sc.termHit // documents of each term, by cs index
	termW := sc.termW     // their weights
	heap := sc.heap[:0]
	defer func() { sc.heap = heap[:0] }()
	// theta: k accepted documents score at least this much.
	theta, read := seedTheta(cs, k, 16*k, accept, heap)
	ess := 0 // cs[:ess] are non-essential: slack·upto[ess] < theta
	for {
		for ess < n && upto[ess+1]*slack < float64(theta) {
			ess++ // not even a document with every term up to ess can reach theta
		}
		first := uint32(math.MaxUint32)
		for i := ess; i < n; i++ {
			if c := &cs[i]; c.pos < len(c.docs) {
				first = min(first, c.docs[c.pos])
			}
		}
		if first == math.MaxUint32 {
			break
		}
		lo := first / win * win
		hi := lo + win
		for _, i := range byQ { // q's order: with no non-essential term, acc is the score
			if i < ess {
				continue
			}
			c := &cs[i]
			docs, ws, idf := c.docs, c.ws, c.idf
			j := c.pos
			if ess == 0 {
				// acc will be the score: no weights to keep.
				for ; j < len(docs) && docs[j] < hi; j++ {
					o := docs[j] - lo
					acc[o] += idf * ws[j]
					live[o/64] |= 1 << (o % 64)
				}
			} else {
				th, tw := termHit[i*words:(i+1)*words], termW[i*int(win):(i+1)*int(win)]
				for ; j < len(docs) && docs[j] < hi; j++ {
					o := docs[j] - lo
					acc[o] += idf * ws[j]
					th[o/64] |= 1 << (o % 64)
					tw[o] = ws[j]
				}
				for wi, b := range th {
					live[wi] |= b
				}
			}
			read += j - c.pos
			c.pos = j
		}
		// Survivors: documents whose sum plus the bounds of the terms not
		// yet added can reach theta.
		need := float64(theta) / slack
		cut := func(rest float64) int {
			// acc ≥ floor, rounded down, keeps every document with
			// acc + rest ≥ need.
			floor := math.Nextafter32(float32(need-rest), float32(math.Inf(-1)))
			left := 0
			for wi, word := range live {
				keep := uint64(0)
				for b := word; b != 0; b &= b - 1 {
					o := bits.TrailingZeros64(b)
					var bit uint64
					if acc[wi*64+o] >= floor {
						bit = 1
					}
					keep |= bit << o
				}
				live[wi] = keep
				left += bits.OnesCount64(keep)
			}
			return left
		}
		left := cut(upto[ess])
		for i := ess - 1; i >= 0 && left > 0; i-- {
			c := &cs[i]
			docs, ws, idf := c.docs, c.ws, c.idf
			th, tw := termHit[i*words:(i+1)*words], termW[i*int(win):(i+1)*int(win)]
			read += c.seek(lo) // it may lag behind windows skipped
			from := c.pos
			read += c.seek(hi)
			if 16*left < c.pos-from {
				// Few survivors: search for them.
				e := pruneCursor{docs: docs[:c.pos], pos: from}
				for wi, word := range live {
					for ; word != 0; word &= word - 1 {
						o := uint32(wi*64 + bits.TrailingZeros64(word))
						read += e.seek(lo + o)
						if e.pos < len(e.docs) && e.docs[e.pos] == lo+o {
							acc[o] += idf * ws[e.pos]
							th[o/64] |= 1 << (o % 64)
							tw[o] = ws[e.pos]
						}
					}
				}
			} else {
				read += c.pos - from
				for j := from; j < c.pos; j++ {
					o := docs[j] - lo
					if live[o/64]&(1<<(o%64)) != 0 {
						acc[o] += idf * ws[j]
						th[o/64] |= 1 << (o % 64)
						tw[o] = ws[j]
					}
				}
			}
			left = cut(upto[i])
		}
		for wi, word := range live {
			live[wi] = 0
			for ; word != 0; word &= word - 1 {
				o := uint32(wi*64 + bits.TrailingZeros64(word))
				score := acc[o]
				if ess > 0 {
					// Sum every weight in q's order, as score does.
					score = 0
					for _, i := range byQ {
						var wi float32
						if termHit[i*words+int(o/64)]&(1<<(o%64)) != 0 {
							wi = termW[i*int(win)+int(o)]
						}
						score += cs[i].idf * wi // absent terms add an exact 0
					}
				}
				if d := lo + o; score != 0 && score >= theta && accept(d) {
					add(d, score)
					heap = pushScore(heap, k, score)
					if len(heap) == k && heap[0] > theta {
						theta = heap[0]
					}
				}
			}
		}
		clear(acc)
		if ess > 0 {
			clear(termHit)
		}
	}
	return read
}

// pruneBuffers are maxScore's window buffers, kept for the next query.
type pruneBuffers struct {
	acc           []float32
	live, termHit []uint64
	termW         []float32
	heap          []float32
}

// pruneScratch returns zeroed buffers for windows of win documents and n
// terms.
func (x *lexIndex) pruneScratch(win uint32, n int) *pruneBuffers {
	b, _ := x.scratch.Get().(*pruneBuffers)
	if b == nil {
		b = &pruneBuffers{}
	}
	words := int(win / 64)
	b.acc = resize(b.acc, int(win))
	b.live = resize(b.live, words)
	b.termHit = resize(b.termHit, n*words)
	if cap(b.termW) < n*int(win) { // read only where termHit says: not zeroed
		b.termW = make([]float32, n*int(win))
	}
	b.termW = b.termW[:n*int(win)]
	return b
}

// resize returns s with length n, zeroed.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// seedTheta starts the threshold from one term's list, the one with the
// largest bound among those of k to most documents: a document's score is at
// least what any one of its terms adds, so if k accepted documents each get
// at least t from that term, the top k all score t or more. It returns t, or
// -Inf when no list is long enough or too few of its best documents are
// accepted, and the postings it read. heap is scratch space.
func seedTheta(cs []pruneCursor, k, most int, accept func(d uint32) bool, heap []float32) (float32, int) {
	none := float32(math.Inf(-1))
	var c *pruneCursor
	for i := len(cs) - 1; i >= 0 && c == nil; i-- {
		if len(cs[i].docs) >= k && len(cs[i].docs) <= most {
			c = &cs[i]
		}
	}
	if c == nil {
		return none, 0
	}
	// The k-th best part the term adds, rounded as the first (or only)
	// term of a score is...
	heap = heap[:0]
	for j := range c.docs {
		if s := c.idf * c.ws[j]; len(heap) < k || s > heap[0] {
			heap = pushScore(heap, k, s)
		}
	}
	// ...then k accepted documents that get that much. About k do, with
	// ties, so unless nearly all pass the filter this fails: give up at
	// the first few rejections rather than check every one.
	t, left, refused := heap[0], k, 0
	for j, d := range c.docs {
		if c.idf*c.ws[j] < t {
			continue
		}
		if !accept(d) {
			if refused++; refused > k/8 {
				break
			}
		} else if left--; left == 0 {
			return t, 2 * len(c.docs)
		}
	}
	return none, 2 * len(c.docs)
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
