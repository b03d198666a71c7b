package promptctx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// BenchmarkContext10k assembles context blocks over a tenant of 10,000
// memories of every type (random unit vectors, so the dense channel costs
// what it costs, and templated texts sharing vocabulary, so the lexical
// channel has work), with the real model embedding each query. It reports
// the median and 95th percentile of one Context call.
func BenchmarkContext10k(b *testing.B) {
	benchContext(b, 10_000)
}

func benchContext(b *testing.B, n int) {
	e := newEnv(b)
	seedCorpus(b, e, n)
	queries := []string{"How do we deploy the billing service?", "what does the user prefer for indentation",
		"database migrations in production", "frontend release steps and CDN cache"}
	files := []string{"", "pkg/billing/deploy.go", "web/src/App.tsx"}
	ctx := context.Background()
	var took []time.Duration
	i := 0
	for b.Loop() {
		req := ContextRequest{Tenant: "acme", Namespace: "proj", Subject: "alice", Query: queries[i%len(queries)], FilePath: files[i%len(files)]}
		i++
		start := time.Now()
		resp, err := e.a.Context(ctx, req)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if resp.Tokens == 0 || resp.Tokens > resp.Budget {
			b.Fatalf("tokens %d of %d", resp.Tokens, resp.Budget)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkResume10k(b *testing.B) {
	e := newEnv(b)
	seedCorpus(b, e, 10_000)
	for b.Loop() {
		if _, err := e.a.Resume(context.Background(), ResumeRequest{Tenant: "acme", Namespace: "proj", SessionID: "s3"}); err != nil {
			b.Fatal(err)
		}
	}
}

// seedCorpus writes n memories to tenant acme, in batches.
func seedCorpus(b *testing.B, e *env, n int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	types := []memory.Type{memory.TypePolicy, memory.TypeWorkflow, memory.TypePitfall, memory.TypeArchitecture, memory.TypeDecision,
		memory.TypePreference, memory.TypeFact, memory.TypeFact, memory.TypeFact, memory.TypeEntity, memory.TypeStyle, memory.TypeEpisode, memory.TypeProcedure}
	var batch []memory.Memory
	for i := range n {
		text := fmt.Sprintf("%s %s: %s", corpusPool[i%len(corpusPool)], []string{"billing", "frontend", "search", "payments", "auth"}[i%5], fmt.Sprint("note ", i))
		m := mem(text, types[rng.IntN(len(types))], func(m *memory.Memory) {
			m.ID = fmt.Sprintf("m%05d", i)
			m.Importance, m.AccessCount, m.SuccessCount = rng.Float64(), rng.IntN(10), rng.IntN(2)
			m.Namespace = []string{memory.DefaultNamespace, "proj", "other"}[rng.IntN(3)]
			m.Subject = []string{"", "alice", "bob"}[rng.IntN(3)]
			m.Session = fmt.Sprintf("s%d", rng.IntN(50))
			m.Layer = []memory.Layer{memory.LayerBuffer, memory.LayerWorking, memory.LayerCore}[rng.IntN(3)]
			m.Scope = corpusScopes[rng.IntN(len(corpusScopes))]
			age := time.Duration(rng.IntN(200*24)) * time.Hour
			m.CreatedAt, m.ModifiedAt = testNow.Add(-age), testNow.Add(-age)
			if rng.IntN(10) == 0 {
				m.Tags = []string{"trigger:" + []string{"deploy", "git-push", "lint", "release"}[rng.IntN(4)]}
			}
		})
		m.Vector = unitVector(rng, 384)
		batch = append(batch, m)
		if len(batch) == 500 || i == n-1 {
			if err := e.st.Upsert(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func unitVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}
