package topiary

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/internal/heappeak"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// BenchmarkRebuildMemory measures a rebuild of a tenant of n memories in a
// local store: the peak growth of the heap's objects over what the store
// holds, the peak of the live heap, and the bytes allocated. Filling the
// store takes longer than the rebuild; run one size at a time:
//
//	go test -run '^$' -bench 'RebuildMemory/100k' -benchtime 1x ./pkg/topiary/
func BenchmarkRebuildMemory(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			e := newEnv(b)
			fill(b, e, "acme", n)
			m := e.module(b, testConfig())
			ctx := context.Background()
			var peak, live, alloc uint64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := heappeak.Start()
				if err := m.Rebuild(ctx, "acme"); err != nil {
					b.Fatal(err)
				}
				o, l := stop()
				runtime.ReadMemStats(&after)
				peak, live = max(peak, o-before.HeapAlloc), max(live, l-before.HeapAlloc)
				alloc = after.TotalAlloc - before.TotalAlloc
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
			b.ReportMetric(float64(alloc)/(1<<20), "alloc-MB")
		})
	}
}

// fill stores n memories of 384 dimensions around n/300 topics, with short
// texts drawn from each topic's words and shared filler.
func fill(b *testing.B, e *env, tenant string, n int) {
	b.Helper()
	const dim = 384
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	topics := max(20, n/300)
	centres := make([][]float64, topics)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for j := range centres[c] {
			centres[c][j] = rng.NormFloat64() / math.Sqrt(dim)
		}
	}
	filler := []string{"project", "service", "config", "team", "release", "issue", "build", "review", "prefers", "uses", "deployment", "meeting"}
	sigma := math.Sqrt(1.2 / dim)
	batch := make([]memory.Memory, 0, 500)
	for i := range n {
		c := rng.IntN(topics)
		var text strings.Builder
		text.WriteString("The user ")
		for range 12 + rng.IntN(12) {
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&text, "term%dx%d ", c, rng.IntN(8))
			} else {
				text.WriteString(filler[rng.IntN(len(filler))] + " ")
			}
		}
		v := make([]float32, dim)
		var norm float64
		for j := range v {
			x := centres[c][j] + sigma*rng.NormFloat64()
			v[j], norm = float32(x), norm+x*x
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		batch = append(batch, memory.Memory{ID: fmt.Sprintf("%s-%07d", tenant, i), Tenant: tenant, Namespace: memory.DefaultNamespace,
			Content: text.String(), Domain: memory.DomainGeneral, Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking,
			Importance: 0.5, Source: memory.SourceAPI, CreatedAt: testStart, ModifiedAt: testStart, Vector: v})
		if len(batch) == cap(batch) || i == n-1 {
			if err := e.store.Upsert(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}
