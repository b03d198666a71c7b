package local

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

const (
	// A search probes at least ivfProbeRoot·√nlist lists, nearest
	// centroid first (ivfMinProbe for small indexes): the share of the
	// lists needed for a given recall falls as there are more of them.
	// On text-like vectors (bench store --vectors text, recall@10 against
	// the exact search, 100 queries): 4% of 896 lists (the rule's 36) gave
	// 0.963 at 100k, 3% 0.952; 2% of 3,584 lists (the rule's 72) 0.985 at
	// 1M, 3% and 5% 0.988.
	ivfProbeRoot = 1.2
	ivfMinProbe  = 8
	// ivfPassFactor: probing goes on until this many times the shortlist
	// passed the filter, so that a filter correlated with the clusters
	// (a subject whose memories sit in a few lists) still finds enough.
	ivfPassFactor = 4
	// ivfEstimateRows is how many evenly spaced rows estimate how many
	// rows a filter passes.
	ivfEstimateRows = 1024
	// ivfBudgetFactor: a probe scores at most this many times the rows
	// its minimum of lists holds on average (see probeIVF).
	ivfBudgetFactor = 2
)

// useIVF reports whether a dense search with filter rf should probe p's
// index rather than scan: the index is ready and the filter passes about
// as many rows as the linear path would search approximately anyway, and
// enough for probing to stop early. The caller holds p.mu.RLock.
func (s *Store) useIVF(p *partition, rf *rowFilter, k int) bool {
	if p.ivf == nil || p.quant == nil || s.cfg.ApproxMinRows == 0 {
		return false
	}
	if s.opts.ivfAlways {
		return true
	}
	return p.estimatePass(rf) >= max(s.cfg.ApproxMinRows, 2*ivfPassFactor*approxKeep(k))
}

// estimatePass estimates how many rows with a vector pass rf from
// ivfEstimateRows evenly spaced ones.
func (p *partition) estimatePass(rf *rowFilter) int {
	n := len(p.recs)
	step := max(1, n/ivfEstimateRows)
	seen, pass := 0, 0
	for i := 0; i < n; i += step {
		seen++
		if p.hasVec[i] && p.match(rf, i) {
			pass++
		}
	}
	if seen == 0 {
		return 0
	}
	return pass * n / seen
}

// ivfScratch holds one probing worker's rows to score and their dots.
type ivfScratch struct {
	rows []int32 // partition rows to score
	dots []int32
}

var ivfScratchPool sync.Pool

func getIVFScratch() *ivfScratch {
	sc, _ := ivfScratchPool.Get().(*ivfScratch)
	if sc == nil {
		sc = &ivfScratch{rows: make([]int32, 0, approxBlock), dots: make([]int32, approxBlock)}
	}
	sc.rows = sc.rows[:0]
	return sc
}

// ivfParallelRows is how many rows a search expects to probe per worker
// before it splits the probing over more than one.
const ivfParallelRows = 16_384

// scanIVF returns the top k rows for vec that pass rf, probing p's index
// (probeIVF), then re-scores the shortlist exactly, as scanApprox does.
// With chunks, rows with chunk vectors are scored exactly by their best
// vector instead. The caller holds p.mu.RLock.
func (s *Store) scanIVF(p *partition, vec []float32, k int, rf *rowFilter, chunks bool) []cand {
	id := p.rowID
	long := chunks && p.nlong > 0
	parts, _ := p.probeIVF(quantizeQuery(vec), approxKeep(k), rf, long)
	best := rescore(p, vec, k, id, parts)
	if !long {
		return best.sorted()
	}
	var longRows []int32
	for i, cv := range p.chunks {
		if cv != nil && p.hasVec[i] && p.match(rf, i) {
			longRows = append(longRows, int32(i))
		}
	}
	return p.scoreLong(vec, longRows, nil, best).sorted()
}

// probeStats counts what one probe did.
type probeStats struct {
	lists  int // lists probed
	seen   int // rows in them
	scored int // rows that passed the filter, int8-scored
}

func (a *probeStats) add(b probeStats) {
	a.lists, a.seen, a.scored = a.lists+b.lists, a.seen+b.seen, a.scored+b.scored
}

// probeIVF int8-scores rows of p's index that pass rf (and have no chunk
// vectors when long) into shortlists of keep, one per worker. The lists
// are taken nearest centroid first, and probing stops once ivfPassFactor
// times keep rows passed the filter and either minProbe lists were
// probed or the rows scored reached the budget (ivfBudgetFactor times the
// rows that many lists hold on average): lists vary in size, and
// the nearest lists of a query in a dense region are the big ones, so
// without the budget a few queries scored several times the rows of
// others. The budget never stops a probe before enough rows passed: a
// filter that passes few rows in the nearest lists probes further, and
// one that passes few rows overall is not searched through the index
// (useIVF). Big probes are split over workers, which take every w-th list
// of the order and share out the minimums and the budget.
func (p *partition) probeIVF(qv []int16, keep int, rf *rowFilter, long bool) ([]*shortlist, probeStats) {
	x := p.ivf
	order := x.order(qv)
	minProbe := x.minProbe()
	wantPass := ivfPassFactor * keep
	expect := minProbe * max(1, x.n/x.nlist)
	budget := max(wantPass, ivfBudgetFactor*expect)
	workers := min(runtime.GOMAXPROCS(0), max(1, expect/ivfParallelRows), minProbe)
	parts := make([]*shortlist, workers)
	stats := make([]probeStats, workers)
	each(workers, func(w int) {
		sc := getIVFScratch()
		defer ivfScratchPool.Put(sc)
		lists := make([]int32, 0, len(order)/workers+1)
		for i := w; i < len(order); i += workers {
			lists = append(lists, order[i])
		}
		parts[w], stats[w] = p.probe(x, qv, rf, long, lists, probeLimits{minProbe: ceilDiv(minProbe, workers),
			wantPass: ceilDiv(wantPass, workers), budget: ceilDiv(budget, workers)}, sc, newShortlist(keep))
	})
	var st probeStats
	for _, s := range stats {
		st.add(s)
	}
	return parts, st
}

// minProbe is how many lists a search probes at least.
func (x *ivfIndex) minProbe() int {
	return min(x.nlist, max(ivfMinProbe, int(ivfProbeRoot*math.Sqrt(float64(x.nlist))+0.5)))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// probeLimits are one worker's share of when to stop probing.
type probeLimits struct {
	minProbe int // lists to probe at least, unless the budget is spent
	wantPass int // rows that must pass the filter before stopping
	budget   int // rows to score at most once wantPass passed
}

// done reports whether a worker that probed lists, found passed rows
// that pass the filter and int8-scored scored rows may stop.
func (l probeLimits) done(lists, passed, scored int) bool {
	return passed >= l.wantPass && (lists >= l.minProbe || scored >= l.budget)
}

// order returns the lists nearest centroid first for the query codes qv,
// ties by list number. Each list is sorted as one integer, its score's
// bits made to order descending above its number: a plain sort of
// integers, several times quicker than comparing scores through a closure
// (it was 2% of a recall's CPU at 100k memories).
func (x *ivfIndex) order(qv []int16) []int32 {
	dots := make([]int32, x.nlist)
	dotsInt8Kernel()(qv, x.ccodes, x.iota, dots)
	keys := make([]uint64, x.nlist)
	for c, d := range dots {
		keys[c] = uint64(descendingBits(float32(d)*x.cscale[c]))<<32 | uint64(c)
	}
	slices.Sort(keys)
	order := make([]int32, x.nlist)
	for i, k := range keys {
		order[i] = int32(uint32(k))
	}
	return order
}

// descendingBits maps a float32 to a uint32 that orders as the floats do
// in reverse: higher scores first.
func descendingBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		b = ^b // negative: larger magnitude sorts lower
	} else {
		b |= 0x80000000
	}
	return ^b
}

// probe int8-scores the rows of lists, in order, that pass rf (and have
// no chunk vectors when long) into sl until lim says it may stop, checked
// after each list and each block of rows.
//
// It filters first: only the rows that pass are scored. Once enough rows
// passed and at least half of the rows seen did, it scores first instead
// and filters only the rows that score into the shortlist, a few hundred
// of the tens of thousands it scores: checking the filter on a scattered
// row costs as much as scoring it (three column reads that miss the
// caches), and a filter that passes most rows saves little scoring. Only
// rows that pass the filter ever enter sl either way.
func (p *partition) probe(x *ivfIndex, qv []int16, rf *rowFilter, long bool, lists []int32, lim probeLimits,
	sc *ivfScratch, sl *shortlist) (*shortlist, probeStats) {
	// The listed rows lie scattered over the slab's chunks: the kernel
	// scores them in place (copying them together cost more than the
	// dots).
	kernel := dotsInt8ChunkedKernel()
	chunks := p.quant.codes.chunks
	scale := p.quant.scale
	var st probeStats
	passed := 0
	// score int8-scores rows (at most approxBlock) and adds those that
	// reach the shortlist, checking the filter unless it was.
	score := func(rows []int32, filtered bool) {
		dots := sc.dots[:len(rows)]
		kernel(qv, chunks, rows, dots)
		st.scored += len(rows)
		for j, r := range rows {
			if score := float32(dots[j]) * scale[r]; score >= sl.floor &&
				(filtered || !(long && p.chunks[r] != nil) && p.match(rf, int(r))) {
				sl.add(cand{score: score, row: int(r)})
			}
		}
	}
	scoreFirst := false
	for _, l := range lists {
		st.lists++
		rows := x.lists[l]
		if scoreFirst {
			for lo := 0; lo < len(rows); lo += approxBlock {
				score(rows[lo:min(len(rows), lo+approxBlock)], false)
				if st.scored >= lim.budget {
					st.seen += min(len(rows), lo+approxBlock)
					return sl, st
				}
			}
			st.seen += len(rows)
			if lim.done(st.lists, passed, st.scored) {
				break
			}
			continue
		}
		for j, r := range rows {
			if long && p.chunks[r] != nil || !p.match(rf, int(r)) {
				continue
			}
			passed++
			sc.rows = append(sc.rows, r)
			if len(sc.rows) == approxBlock {
				score(sc.rows, true)
				sc.rows = sc.rows[:0]
				if passed >= lim.wantPass && st.scored >= lim.budget {
					st.seen += j + 1
					return sl, st
				}
			}
		}
		st.seen += len(rows)
		if len(sc.rows) > 0 {
			score(sc.rows, true)
			sc.rows = sc.rows[:0]
		}
		if lim.done(st.lists, passed, st.scored) {
			break
		}
		scoreFirst = passed >= lim.wantPass && 2*passed >= st.seen
	}
	return sl, st
}
