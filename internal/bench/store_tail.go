package bench

import (
	"math"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/internal/cputime"
)

// StoreTail says what the slowest hybrid searches had that the others did
// not, so that a p99 far above the p50 on some machine can be read off one
// run: a query that is slow again when re-run alone is slow by its data
// (the lists the probe visits, the postings of its words); one that used
// less CPU than its wall time waited (for a core the hypervisor gave to
// another guest, or the scheduler); one that took more page faults than the
// rest read vectors that were not mapped; one during which a collection
// finished may have paused or shared the cores with it.
type StoreTail struct {
	// SlowQueries is how many hybrid searches count as slow: the slowest
	// 1%, at least 3 (ask for 1,000 queries or more for a steady figure).
	SlowQueries int `json:"slow_queries"`
	// SlowFromMs is the fastest slow search.
	SlowFromMs float64 `json:"slow_from_ms"`
	// CPUOverWall is the process's CPU time over the search's wall time,
	// the mean over the slow searches and over the rest: up to about 2
	// (dense and text run in parallel), far below the rest's when a slow
	// search waited rather than worked.
	SlowCPUOverWall float64 `json:"slow_cpu_over_wall"`
	RestCPUOverWall float64 `json:"rest_cpu_over_wall"`
	// MinorFaults and MajorFaults are the process's page faults per search
	// (minor: mapped in from memory, such as the vector cache's pages the
	// first time a search reads them; major: read from disk).
	SlowMinorFaults float64 `json:"slow_minor_faults"`
	RestMinorFaults float64 `json:"rest_minor_faults"`
	SlowMajorFaults float64 `json:"slow_major_faults"`
	RestMajorFaults float64 `json:"rest_major_faults"`
	// DuringGC is the share of searches during which a collection cycle
	// finished.
	SlowDuringGC float64 `json:"slow_during_gc"`
	RestDuringGC float64 `json:"rest_during_gc"`
	// SlowRepeat is the share of slow searches whose dense or text search,
	// re-run alone right after, takes again more than twice that channel's
	// median: the query is slow, not the moment.
	SlowRepeat float64 `json:"slow_repeat"`
	// GCCycles counts the collections over the timed searches; StealShare
	// is the share of the machine's CPU time the hypervisor gave to other
	// guests meanwhile.
	GCCycles   uint64  `json:"gc_cycles"`
	StealShare float64 `json:"steal_share"`
}

// searchSample is what one timed search took and what happened meanwhile.
type searchSample struct {
	wall  time.Duration
	usage cputime.Usage
	gc    bool // a collection cycle finished
}

// sampler marks the start and end of one timed search.
type sampler struct{ gcs []metrics.Sample }

func newSampler() *sampler {
	return &sampler{gcs: []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}}
}

// searchMark is the state at a search's start.
type searchMark struct {
	at    time.Time
	usage cputime.Usage
	gcs   uint64
}

func (s *sampler) cycles() uint64 {
	metrics.Read(s.gcs)
	if s.gcs[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.gcs[0].Value.Uint64()
}

func (s *sampler) start() searchMark {
	return searchMark{usage: cputime.Read(), gcs: s.cycles(), at: time.Now()}
}

func (s *sampler) stop(m searchMark) searchSample {
	wall := time.Since(m.at)
	return searchSample{wall: wall, usage: cputime.Read().Sub(m.usage), gc: s.cycles() != m.gcs}
}

// storeTail sums up hybrid's slow searches against the rest; dense and
// text are the same queries' re-runs, in query order.
func storeTail(hybrid []searchSample, dense, text []time.Duration) StoreTail {
	n := len(hybrid)
	if n == 0 {
		return StoreTail{}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(hybrid[b].wall - hybrid[a].wall) })
	slow := min(max(int(math.Ceil(float64(n)/100)), 3), n/2)
	if slow == 0 {
		return StoreTail{}
	}
	denseSlow, textSlow := 2*medianOf(dense), 2*medianOf(text)
	var t StoreTail
	t.SlowQueries = slow
	t.SlowFromMs = ms(hybrid[order[slow-1]].wall)
	var s, r tailSums
	for rank, i := range order {
		q := hybrid[i]
		if rank < slow {
			s.add(q)
			if (i < len(dense) && dense[i] > denseSlow) || (i < len(text) && text[i] > textSlow) {
				t.SlowRepeat++
			}
			continue
		}
		r.add(q)
	}
	t.SlowRepeat /= float64(slow)
	t.SlowCPUOverWall, t.SlowMinorFaults, t.SlowMajorFaults, t.SlowDuringGC = s.means()
	t.RestCPUOverWall, t.RestMinorFaults, t.RestMajorFaults, t.RestDuringGC = r.means()
	return t
}

// tailSums adds up samples for their means.
type tailSums struct {
	n                         int
	cpuOverWall, minor, major float64
	gc                        float64
}

func (s *tailSums) add(q searchSample) {
	s.n++
	if q.wall > 0 {
		s.cpuOverWall += float64(q.usage.CPU) / float64(q.wall)
	}
	s.minor += float64(q.usage.MinorFaults)
	s.major += float64(q.usage.MajorFaults)
	if q.gc {
		s.gc++
	}
}

func (s tailSums) means() (cpuOverWall, minor, major, gc float64) {
	if s.n == 0 {
		return 0, 0, 0, 0
	}
	n := float64(s.n)
	return s.cpuOverWall / n, s.minor / n, s.major / n, s.gc / n
}

// medianOf is the median of d (left unsorted), as percentile reads it.
func medianOf(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	c := slices.Clone(d)
	slices.Sort(c)
	return c[len(c)/2]
}
