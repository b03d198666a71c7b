package local

// approxBlock is how many rows the int8 kernel scores per call.
const approxBlock = 256

// approxKeep is how many candidates the int8 scan keeps for exact
// re-scoring: quantisation moves a score by about 1e-3 for unit vectors,
// far less than the spread between the 10th and the 100th best in any
// realistic partition, so the true top k is almost always among them.
func approxKeep(k int) int { return max(100, 10*k) }

// scanApprox scores the listed rows with the int8 kernel, keeps each
// worker's approxKeep(k) best, then re-scores those exactly in float32 and
// returns the top k: the ranking is approximate, the scores are not.
func scanApprox(p *partition, vec []float32, k int, lists []*[]int32, workers int) []cand {
	id := func(row int) string { return p.recs[row].ID }
	keep := approxKeep(k)
	qv := quantizeQuery(vec)
	parts := make([]*topK, workers)
	each(workers, func(w int) {
		parts[w] = scoreInt8(p.quant, qv, *lists[w], newTopK(keep, id))
	})
	short := merge(keep, id, parts)
	rows := make([]int32, len(short))
	for i, c := range short {
		rows[i] = int32(c.row)
	}
	return scoreExact(p, vec, rows, newTopK(k, id)).sorted()
}

// scoreInt8 pushes each listed row with its approximate score into t.
func scoreInt8(q *quantSlab, qv []int16, rows []int32, t *topK) *topK {
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
			c := cand{score: float32(dots[j]) * q.scale[r], row: int(r)}
			if len(t.items) < t.k || c.score >= t.items[0].score {
				t.push(c)
			}
		}
	}
	return t
}
