package local

import (
	"slices"
)

// A long memory's chunk vectors (memory.Memory.ChunkVectors) are kept per
// row, back to back, beside the slab: only long memories have them, so
// they are few next to the rows, and a search that asks for them
// (store.Query.Chunks) scores those rows exactly by their best vector
// while the slab scan, exact or int8, scores the others.

// flatten returns vs back to back, or nil for none.
func flatten(vs [][]float32) []float32 {
	if len(vs) == 0 {
		return nil
	}
	out := make([]float32, 0, len(vs)*len(vs[0]))
	for _, v := range vs {
		out = append(out, v...)
	}
	return out
}

// setChunks gives row i the flattened chunk vectors cv (nil: none).
func (p *partition) setChunks(i int, cv []float32) {
	if p.chunks[i] != nil {
		p.nlong--
	}
	p.chunks[i] = cv
	if cv != nil {
		p.nlong++
	}
}

// chunkVectors returns row i's chunk vectors, copied when copied is set
// (else aliasing the row's, which are replaced but never changed in
// place), or nil.
func (p *partition) chunkVectors(i int, copied bool) [][]float32 {
	if p.nlong == 0 { // most partitions: no row to look at
		return nil
	}
	cv := p.chunks[i]
	if cv == nil || p.dim == 0 {
		return nil
	}
	if copied {
		cv = slices.Clone(cv)
	}
	n := len(cv) / p.dim
	out := make([][]float32, n)
	for k := range out {
		out[k] = cv[k*p.dim : (k+1)*p.dim : (k+1)*p.dim]
	}
	return out
}

// chunkPartLen is what row i's chunk vectors take in its upsert record.
func (p *partition) chunkPartLen(i int) int {
	if p.chunks[i] == nil || p.dim == 0 {
		return 0
	}
	return chunkPartLen(len(p.chunks[i])/p.dim, p.dim)
}

// bestChunkScore is the best of row i's vector's score and its chunks'
// for vec.
func (p *partition) bestChunkScore(dot func(a, b []float32) float32, vec []float32, i int) float32 {
	best := dot(vec, p.vecs.row(i))
	cv := p.chunks[i]
	for o := 0; o+p.dim <= len(cv); o += p.dim {
		best = max(best, dot(vec, cv[o:o+p.dim]))
	}
	return best
}

// takeLong moves the rows of list that have chunk vectors to long, keeping
// the others in order, and returns long.
func (p *partition) takeLong(list *[]int32, long []int32) []int32 {
	rows := (*list)[:0]
	for _, r := range *list {
		if p.chunks[r] != nil {
			long = append(long, r)
		} else {
			rows = append(rows, r)
		}
	}
	*list = rows
	return long
}

// scoreLong pushes rest (the other rows' best) and each long row with its
// best score into t.
func (p *partition) scoreLong(vec []float32, long []int32, rest []cand, t *topK) *topK {
	for _, c := range rest {
		t.push(c)
	}
	dot := dotKernel()
	for _, r := range long {
		t.push(cand{score: p.bestChunkScore(dot, vec, int(r)), row: int(r)})
	}
	return t
}
