package recall

import (
	"context"
	"github.com/recollect-dev/recollect/internal/embedtest"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// termEmbedder is the shared deterministic test embedder.
type termEmbedder = embedtest.Terms

const termDim = embedtest.TermDim

func TestRecallTouchesStrongHits(t *testing.T) {
	ctx := context.Background()
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	contents := map[string]string{
		"strong": "indent go code with tabs",
		"weak":   "browser tabs pile up during long research sessions on many unrelated topics",
	}
	var mems []memory.Memory
	for id, c := range contents {
		vecs, _ := termEmbedder{}.Embed(ctx, []string{c})
		mems = append(mems, memory.Memory{ID: id, Tenant: "acme", Namespace: memory.DefaultNamespace, Content: c, Domain: "general",
			Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, Importance: 0.5,
			CreatedAt: now.Add(-time.Hour), ModifiedAt: now.Add(-time.Hour), Vector: vecs[0]})
	}
	if err := st.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	cfg := Config{PerDomain: 5, MaxResults: 9, MinRelevance: 0.01, Candidates: 50}
	r, err := New(cfg, st, termEmbedder{}, domains.Builtin(), clock)
	if err != nil {
		t.Fatal(err)
	}
	counts := func() map[string]int {
		got := map[string]int{}
		for id := range contents {
			m, err := st.Get(ctx, "acme", id)
			if err != nil {
				t.Fatal(err)
			}
			got[id] = m.AccessCount
		}
		return got
	}
	req := Request{Tenant: "acme", Query: "indent go code with tabs"}

	// A dry recall ranks the same memories and touches none.
	req.Dry = true
	resp, err := r.Recall(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rel := map[string]float64{}
	for _, res := range resp.Memories {
		rel[res.Memory.ID] = res.Relevance
	}
	if rel["strong"] <= TouchRelevance || rel["weak"] == 0 || rel["weak"] > TouchRelevance {
		t.Fatalf("relevances %v: want strong above %v and weak recalled below it", rel, TouchRelevance)
	}
	r.Wait()
	if got := counts(); got["strong"] != 0 || got["weak"] != 0 {
		t.Fatalf("dry recall touched memories: %v", got)
	}

	// A real one bumps the strong hit only, in the background.
	req.Dry = false
	if _, err := r.Recall(ctx, req); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	if got := counts(); got["strong"] != 1 || got["weak"] != 0 {
		t.Fatalf("access counts after recall = %v, want strong 1 and weak 0", got)
	}
	m, _ := st.Get(ctx, "acme", "strong")
	if !m.LastAccessed.Equal(now) {
		t.Fatalf("last accessed = %v, want %v", m.LastAccessed, now)
	}
	if m.Content != contents["strong"] || len(m.Vector) != termDim {
		t.Fatalf("touch changed the memory: %+v", m)
	}
}
