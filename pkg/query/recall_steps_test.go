package query

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// TestRecallLLMFlagsWithoutLLM: expand and rerank are accepted without an
// LLM and reported as not applied; the file path filters.
func TestRecallLLMFlagsWithoutLLM(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	now := time.Now().UTC()
	var mems []memory.Memory
	for id, scope := range map[string][]string{"go": {"**/*.go"}, "web": {"web/**"}} {
		content := "deploy notes for the " + id + " code"
		vecs, _ := termEmbedder{}.Embed(ctx, []string{content})
		mems = append(mems, memory.Memory{ID: id, Tenant: "acme", Namespace: memory.DefaultNamespace, Domain: "general", Content: content,
			Type: memory.TypeFact, Kind: memory.KindSemantic, Layer: memory.LayerWorking, Scope: scope, CreatedAt: now, ModifiedAt: now, Vector: vecs[0]})
	}
	if err := h.store.Upsert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"tenant": "acme", "query": "deploy notes code", "expand": true, "rerank": true, "dry": true,
		"filters": map[string]any{"file_path": "cmd/main.go"}}
	var resp recall.Response
	if code := h.do(t, http.MethodPost, "/v1/recall", body, &resp); code != http.StatusOK {
		t.Fatalf("recall answered %d", code)
	}
	for name, s := range map[string]*recall.Step{"expand": resp.Expand, "rerank": resp.Rerank} {
		if s == nil || s.Applied || s.Reason != "llm_off" {
			t.Fatalf("%s step %+v, want reported as not applied (llm_off)", name, s)
		}
	}
	if len(resp.Memories) != 1 || resp.Memories[0].Memory.ID != "go" {
		t.Fatalf("recalled %+v, want only the memory scoped to Go files", resp.Memories)
	}
}
