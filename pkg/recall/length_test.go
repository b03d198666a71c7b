package recall_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// fixedModel embeds every text as one vector: the test sets the cosines.
type fixedModel struct{ v []float32 }

func (m fixedModel) Dim() int      { return len(m.v) }
func (m fixedModel) Model() string { return "fixed" }
func (m fixedModel) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = m.v
	}
	return out, nil
}

// unitAt is a unit vector at cosine c with (1, 0, 0), turned by angle a
// around the first axis so that vectors at one cosine can differ.
func unitAt(c, a float64) []float32 {
	s := math.Sqrt(1 - c*c)
	return []float32{float32(c), float32(s * math.Cos(a)), float32(s * math.Sin(a))}
}

// TestLongMemoryDoesNotWinByItsChunks: a message of eight chunks whose
// best chunk is a little closer to the query than a short message does not
// outrank it: the best of eight is partly luck (issue 21).
func TestLongMemoryDoesNotWinByItsChunks(t *testing.T) {
	ctx := context.Background()
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	base := memory.Memory{Tenant: "acme", Namespace: memory.DefaultNamespace, Domain: "general", Type: memory.TypeFact,
		Kind: memory.KindSemantic, Layer: memory.LayerWorking, Importance: 0.5, CreatedAt: testNow.Add(-time.Hour), ModifiedAt: testNow.Add(-time.Hour)}
	short := base
	short.ID, short.Content, short.Vector = "short", "Elif prefers the fish shell on every machine she uses.", unitAt(0.70, 0)
	long := base
	long.ID, long.Content = "long", "Sage explained a long setup of many machines, editors, terminals and prompts in detail."
	long.ChunkVectors = [][]float32{unitAt(0.72, 1)}
	for k := range 7 {
		long.ChunkVectors = append(long.ChunkVectors, unitAt(0.2, float64(k)))
	}
	long.Vector = unitAt(0.4, 2)
	if err := st.Upsert(ctx, []memory.Memory{short, long}); err != nil {
		t.Fatal(err)
	}
	cfg := recall.Config{PerDomain: 10, MaxResults: 10, MinRelevance: 0.05, Candidates: 50}
	r, err := recall.New(cfg, st, fixedModel{unitAt(1, 0)}, domains.Builtin(), func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Recall(ctx, recall.Request{Tenant: "acme", Query: "qqq", K: 10, Dry: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(resp); len(got) != 2 || got[0] != "short" {
		t.Fatalf("ranking = %v, want the short memory first", got)
	}
}
