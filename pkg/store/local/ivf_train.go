package local

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
)

const (
	// ivfRetrainGrowth retrains a partition's index once it holds this many
	// times the vectors it was trained on: the lists would be long and the
	// centroids fit an older share of the data.
	ivfRetrainGrowth = 4
	// ivfSamplePerList and ivfSampleMax size the k-means sample.
	ivfSamplePerList = 32
	ivfSampleMax     = 65_536
	// ivfIterations is how many k-means rounds training runs.
	ivfIterations = 8
	// ivfBuildChunk is how many rows the builder assigns per hold of the
	// partition's read lock: a few milliseconds at a million rows.
	ivfBuildChunk = 256
	// ivfListsPerRoot and ivfMaxLists size the lists (see ivfLists).
	ivfListsPerRoot = 4
	ivfMaxLists     = 4096
)

var errIVFAbandoned = errors.New("index build abandoned")

// ivfLists is how many lists an index over n vectors gets: 4√n, capped.
// More, smaller lists find more of the true neighbours per row scanned
// (on text vectors at 100k, probing 4% of the rows: recall@10 0.92 with
// √n lists, 0.97 with 4√n), at the price of one int8 dot per list for
// each row a write assigns.
func ivfLists(n int) int {
	return max(1, min(ivfMaxLists, n, int(math.Round(ivfListsPerRoot*math.Sqrt(float64(n))))))
}

// syncIVF keeps the index, and one being built, exact after row i took vec
// (nil: none). The caller holds p.mu.
func (p *partition) syncIVF(i int, vec []float32) {
	if p.quant == nil {
		p.ivf, p.build = nil, nil
		return
	}
	if len(vec) == 0 {
		vec = nil
	}
	if p.ivf != nil {
		p.ivf.set(i, vec, true)
	}
	if p.build != nil {
		p.build.set(i, vec, false)
	}
}

// removeIVF follows remove moving row last into row i and dropping row
// last. The caller holds p.mu.
func (p *partition) removeIVF(i, last int) {
	if p.ivf == nil && p.build == nil {
		return
	}
	var vec []float32
	if i != last && p.hasVec[i] {
		vec = p.vecs.row(i)
	}
	if p.ivf != nil {
		p.ivf.removeRow(i, last, vec)
	}
	if p.build != nil {
		p.build.removeRow(i, last, vec)
	}
}

// wantsIndex reports whether the partition should start training: it has
// enough vectors and no index, or one trained on far fewer. The caller
// holds p.mu.
func (p *partition) wantsIndex() bool {
	if p.training || p.indexMin <= 0 || p.quant == nil || p.nvec < p.indexMin {
		return false
	}
	return p.ivf == nil || p.nvec >= ivfRetrainGrowth*p.ivf.trained
}

// maybeIndex starts training p's index in the background if it wants one.
// The caller holds writeMu (so that Close, once it has taken writeMu after
// setting closed, knows none starts) and p.mu.
func (s *Store) maybeIndex(tenant string, p *partition) {
	if s.closed.Load() || s.recovering || !p.wantsIndex() {
		return
	}
	p.training = true
	s.ivfWG.Add(1)
	go func() {
		defer s.ivfWG.Done()
		s.train(tenant, p)
	}()
}

// train builds p's index and swaps it in, logging what it took; Close
// cancels it between steps.
func (s *Store) train(tenant string, p *partition) {
	start := s.now()
	x, err := p.trainIVF(s.bgCtx, uint64(s.ivfTrainings.Load())+1)
	if err != nil {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, errIVFAbandoned) {
			s.log.Warn("local store index not trained", "tenant", tenant, "err", err)
		}
		return
	}
	s.ivfTrainings.Add(1)
	s.ivfChanged.Store(true)
	s.log.Info("local store index trained", "tenant", tenant, "rows", x.trained, "lists", x.nlist,
		"took", s.now().Sub(start))
	// The partition may have grown past a retrain while this one ran.
	s.writeMu.Lock()
	p.mu.Lock()
	p.vecs.dropPages() // the assignment read every row
	s.maybeIndex(tenant, p)
	p.mu.Unlock()
	s.writeMu.Unlock()
}

// trainIVF trains centroids on a sample of p's vectors, assigns every row
// in chunks under the read lock while writers keep the assigned rows
// exact, and makes the result p's index. It always clears p.training.
func (p *partition) trainIVF(ctx context.Context, seed uint64) (*ivfIndex, error) {
	var x *ivfIndex
	defer func() {
		p.mu.Lock()
		if x != nil && p.build == x {
			p.build = nil // abandoned before it was swapped in
		}
		p.training = false
		p.mu.Unlock()
	}()
	r := rand.New(rand.NewPCG(seed, 0x1f1f))
	p.mu.RLock()
	if p.quant == nil || p.dim == 0 {
		p.mu.RUnlock()
		return nil, errIVFAbandoned
	}
	dim, nvec := p.dim, p.nvec
	nlist := ivfLists(nvec)
	sample := p.sampleVectors(r, min(nvec, ivfSamplePerList*nlist, ivfSampleMax))
	p.mu.RUnlock()

	cents, err := kmeans(ctx, r, sample, dim, nlist, ivfIterations)
	if err != nil {
		return nil, err
	}
	x = newIVF(dim, cents, nvec)
	p.mu.Lock()
	if p.quant == nil || p.dim != dim {
		p.mu.Unlock()
		return nil, errIVFAbandoned
	}
	p.build = x
	p.mu.Unlock()

	a := x.newAssigner()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.mu.RLock()
		if p.build != x {
			p.mu.RUnlock()
			return nil, errIVFAbandoned
		}
		done := p.assignRows(x, ivfBuildChunk, a)
		p.mu.RUnlock()
		if done {
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.build != x {
		return nil, errIVFAbandoned
	}
	p.assignRows(x, len(p.recs), a) // rows appended since the last chunk
	p.ivf, p.build = x, nil
	done := x
	x = nil // swapped in: the deferred clean-up has nothing to undo
	return done, nil
}

// assignRows extends x over up to n more rows and reports whether it
// covers them all. The caller holds p.mu (read lock at least), and is the
// only one changing x under the read lock.
func (p *partition) assignRows(x *ivfIndex, n int, a *assigner) bool {
	hi := min(len(p.recs), x.n+n)
	for i := x.n; i < hi; i++ {
		x.grow(i)
		if p.hasVec[i] {
			x.put(i, x.nearest(p.vecs.row(i), a))
		}
	}
	x.n = hi
	return hi == len(p.recs)
}

// sampleVectors copies about n random row vectors (rows without one are
// skipped), back to back. The caller holds p.mu.
func (p *partition) sampleVectors(r *rand.Rand, n int) []float32 {
	rows := len(p.recs)
	out := make([]float32, 0, n*p.dim)
	if n >= p.nvec {
		for i := range rows {
			if p.hasVec[i] {
				out = append(out, p.vecs.row(i)...)
			}
		}
		return out
	}
	for _, i := range r.Perm(rows) {
		if len(out) == n*p.dim {
			break
		}
		if p.hasVec[i] {
			out = append(out, p.vecs.row(i)...)
		}
	}
	return out
}

// kmeans returns nlist unit centroids for the unit vectors in sample
// (spherical k-means, nearest as an index assigns rows, means in float32),
// checking ctx between rounds. An emptied list takes a random sample
// vector.
func kmeans(ctx context.Context, r *rand.Rand, sample []float32, dim, nlist, iters int) ([]float32, error) {
	n := len(sample) / dim
	nlist = min(nlist, n)
	cents := make([]float32, nlist*dim)
	for c, i := range r.Perm(n)[:nlist] {
		copy(cents[c*dim:(c+1)*dim], sample[i*dim:(i+1)*dim])
	}
	sums := make([]float32, nlist*dim)
	counts := make([]int, nlist)
	for range iters {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := newIVF(dim, cents, 0)
		clear(sums)
		clear(counts)
		for i := range n {
			best := int(x.nearest(sample[i*dim:(i+1)*dim], x.as))
			counts[best]++
			sum := sums[best*dim : (best+1)*dim]
			for j, v := range sample[i*dim : (i+1)*dim] {
				sum[j] += v
			}
		}
		for c := range nlist {
			cent := cents[c*dim : (c+1)*dim]
			if counts[c] == 0 {
				i := r.IntN(n)
				copy(cent, sample[i*dim:(i+1)*dim])
				continue
			}
			copy(cent, sums[c*dim:(c+1)*dim])
			normalizeInPlace(cent)
		}
	}
	return cents, nil
}

// normalizeInPlace scales v to unit length (a zero vector stays zero).
func normalizeInPlace(v []float32) {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sq))
	for j := range v {
		v[j] *= inv
	}
}
