package local

import "math"

// approxBlock is how many rows the int8 kernel scores per call.
const approxBlock = 256

// approxKeep is how many candidates the int8 scan keeps for exact
// re-scoring: quantisation moves a score by about 1e-3 for unit vectors,
// less than the spread between the k-th and the 2k-th (or 100th) best even
// for random unit vectors, whose scores crowd closer than real embeddings'
// do, so the true top k is almost always among them (bench store measures
// recall 1.0 at k = 10 and k = 200 on 100k random vectors).
func approxKeep(k int) int { return max(100, 2*k) }

// scanApprox scores the listed rows with the int8 kernel, keeps each
// worker's approxKeep(k) best, then re-scores those exactly in float32 and
// returns the top k: the ranking is approximate, the scores are not.
func scanApprox(p *partition, vec []float32, k int, lists []*[]int32, workers int) []cand {
	id := p.rowID
	keep := approxKeep(k)
	qv := quantizeQuery(vec)
	parts := make([]*shortlist, workers)
	each(workers, func(w int) {
		parts[w] = scoreInt8(p.quant, qv, *lists[w], newShortlist(keep))
	})
	return rescore(p, vec, k, id, parts).sorted()
}

// rescore merges the workers' int8 shortlists and scores what they kept
// exactly: the top k by float32 cosine.
func rescore(p *partition, vec []float32, k int, id func(int) string, parts []*shortlist) *topK {
	all := parts[0]
	for _, part := range parts[1:] {
		for _, c := range part.buf {
			all.add(c)
		}
	}
	all.cut()
	rows := make([]int32, len(all.buf))
	for i, c := range all.buf {
		rows[i] = int32(c.row)
	}
	return scoreExact(p, vec, rows, newTopK(k, id))
}

// scoreInt8 adds each listed row with its approximate score to s.
func scoreInt8(q *quantSlab, qv []int16, rows []int32, s *shortlist) *shortlist {
	kernel := dotsInt8Kernel()
	var dots, rel [approxBlock]int32
	for len(rows) > 0 {
		// A block stays within one chunk (rows ascend), indexed from its start.
		chunk := rows[0] >> chunkShift
		n := 0
		for n < min(approxBlock, len(rows)) && rows[n]>>chunkShift == chunk {
			rel[n] = rows[n] & chunkMask
			n++
		}
		block := rows[:n]
		rows = rows[n:]
		kernel(qv, q.codes.chunk(int(chunk)), rel[:n], dots[:n])
		for j, r := range block {
			if score := float32(dots[j]) * q.scale[r]; score >= s.floor {
				s.add(cand{score: score, row: int(r)})
			}
		}
	}
	return s
}

// shortlist keeps the keep best candidates and every candidate tied with
// the keep-th, cheaply: a candidate below the floor is dropped with one
// comparison, the others are appended, and when the buffer holds twice
// keep it is cut to the keep best (a linear-time selection) plus their
// ties, and the floor raised to the worst of them. Keeping ties makes the
// result independent of the order candidates arrive in.
type shortlist struct {
	keep  int
	floor float32
	buf   []cand
	limit int // cut when buf reaches it
}

func newShortlist(keep int) *shortlist {
	return &shortlist{keep: keep, floor: float32(math.Inf(-1)), buf: make([]cand, 0, 2*keep), limit: 2 * keep}
}

func (s *shortlist) add(c cand) {
	if c.score < s.floor {
		return
	}
	s.buf = append(s.buf, c)
	if len(s.buf) >= s.limit {
		s.cut()
	}
}

// cut leaves the keep best candidates (all of them if fewer) and their
// ties in buf.
func (s *shortlist) cut() {
	if len(s.buf) <= s.keep {
		return
	}
	selectBest(s.buf, s.keep)
	floor := s.buf[0].score
	for _, c := range s.buf[1:s.keep] {
		floor = min(floor, c.score)
	}
	n := s.keep
	for i := s.keep; i < len(s.buf); i++ {
		if s.buf[i].score == floor {
			s.buf[n], s.buf[i] = s.buf[i], s.buf[n]
			n++
		}
	}
	s.buf, s.floor = s.buf[:n], floor
	// Many ties can leave buf longer than keep: cut again only once it
	// has doubled, so that adding stays linear.
	s.limit = max(2*s.keep, 2*n)
}

// selectBest reorders cs so that its first n entries have the n highest
// scores (Hoare quickselect, median-of-three pivots; n < len(cs)).
func selectBest(cs []cand, n int) {
	lo, hi := 0, len(cs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Median of three, placed at mid, as the pivot.
		if cs[mid].score > cs[lo].score {
			cs[mid], cs[lo] = cs[lo], cs[mid]
		}
		if cs[hi].score > cs[lo].score {
			cs[hi], cs[lo] = cs[lo], cs[hi]
		}
		if cs[hi].score > cs[mid].score {
			cs[hi], cs[mid] = cs[mid], cs[hi]
		}
		pivot := cs[mid].score
		i, j := lo, hi
		for i <= j {
			for cs[i].score > pivot {
				i++
			}
			for cs[j].score < pivot {
				j--
			}
			if i <= j {
				cs[i], cs[j] = cs[j], cs[i]
				i++
				j--
			}
		}
		// cs[lo..j] >= pivot >= cs[i..hi]; entries between equal the pivot.
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return
		}
	}
}
