package topics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/heappeak"
)

// memTenant is a synthetic tenant shaped like a real one: short texts and
// ids that the store holds anyway (they are in the baseline), and vectors
// that, as a store scroll does, come into being one memory at a time.
type memTenant struct {
	n       int
	ids     []string
	texts   []string
	topic   []int
	centres [][]float32
}

func newMemTenant(n, topics int) *memTenant {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	const dim = 384
	t := &memTenant{n: n, ids: make([]string, n), texts: make([]string, n), topic: make([]int, n), centres: make([][]float32, topics)}
	vocab := make([][]string, topics)
	for c := range t.centres {
		t.centres[c] = randUnit(rng, dim)
		for w := range 8 {
			vocab[c] = append(vocab[c], fmt.Sprintf("term%dx%d", c, w))
		}
	}
	filler := []string{"project", "service", "config", "team", "release", "issue", "build", "review", "prefers", "uses", "deployment", "meeting"}
	for i := range n {
		c := rng.IntN(topics)
		var b strings.Builder
		b.WriteString("The user ")
		for range 12 + rng.IntN(12) {
			if rng.IntN(2) == 0 {
				b.WriteString(vocab[c][rng.IntN(len(vocab[c]))])
			} else {
				b.WriteString(filler[rng.IntN(len(filler))])
			}
			b.WriteString(" ")
		}
		t.ids[i] = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()>>16)
		t.texts[i], t.topic[i] = b.String(), c
	}
	return t
}

// scroll hands over every memory with a freshly allocated vector, as
// store.Scroll does.
func (t *memTenant) scroll(fn func(Item)) {
	rng := rand.New(rand.NewPCG(uint64(t.n), 2))
	const spread = 1.2
	sigma := float32(math.Sqrt(spread / 384))
	for i := range t.n {
		c := t.centres[t.topic[i]]
		v := make([]float32, len(c))
		for j := range v {
			v[j] = c[j] + sigma*float32(rng.NormFloat64())
		}
		fn(Item{ID: t.ids[i], Vector: v, Text: t.texts[i], Domain: "general", Importance: float64(i%10) / 10})
	}
}

// benchmarkRebuildMemory measures what a topiary rebuild costs in memory:
// from a scroll of the tenant's memories to the finished tree. It reports
// the peak growth of the heap's objects over the baseline (the tenant's ids
// and texts, which the store holds anyway), of the heap's live bytes, and
// the bytes allocated.
func benchmarkRebuildMemory(b *testing.B, n int) {
	tenant := newMemTenant(n, max(20, n/300))
	b.ResetTimer()
	var peak, live, alloc uint64
	var cpu time.Duration
	var tree Tree
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := cpuTime()
		stop := heappeak.Start()
		tree = rebuildLike(tenant)
		p, l := stop()
		cpu = cpuTime() - start
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		peak, live = max(peak, p-before.HeapAlloc), max(live, l-before.HeapAlloc)
		alloc = after.TotalAlloc - before.TotalAlloc
	}
	if tree.Memories != n {
		b.Fatalf("tree holds %d memories, want %d", tree.Memories, n)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(live)/(1<<20), "live-MB")
	b.ReportMetric(float64(alloc)/(1<<20), "alloc-MB")
	b.ReportMetric(float64(len(tree.Leaves())), "leaves")
	b.ReportMetric(cpu.Seconds(), "cpu-s")
}

// cpuTime is the process's user and system CPU time: on a shared machine a
// steadier measure of the work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rebuildLike is what topiary's Rebuild does with the scroll.
func rebuildLike(t *memTenant) Tree {
	b := NewBuilder()
	t.scroll(b.Add)
	return b.Build("bench", DefaultOptions(), built)
}

func BenchmarkRebuildMemory20k(b *testing.B)  { benchmarkRebuildMemory(b, 20_000) }
func BenchmarkRebuildMemory100k(b *testing.B) { benchmarkRebuildMemory(b, 100_000) }
func BenchmarkRebuildMemory200k(b *testing.B) { benchmarkRebuildMemory(b, 200_000) }
func BenchmarkRebuildMemory500k(b *testing.B) { benchmarkRebuildMemory(b, 500_000) }
