package query

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestImportRecomputesChunkVectors: exports leave chunk vectors out, so an
// imported long memory is embedded again, by its chunks, even when it
// carries a vector of this server's model; imported again unchanged, it is
// skipped.
func TestImportRecomputesChunkVectors(t *testing.T) {
	h := newImportHarness(t)
	long := fixture("m-long", "acme")
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "Sentence %d says the deploy step %d of the pipeline runs lint and tests. ", i, i)
	}
	long.Content = strings.TrimSpace(b.String())
	vecs, _ := termEmbedder{}.Embed(context.Background(), []string{long.Content})
	long.Vector, long.EmbeddingModel = vecs[0], termEmbedder{}.Model()

	code, resp := h.importBody(t, "acme", ndjson(t, long))
	if code != http.StatusOK || resp.Imported != 1 {
		t.Fatalf("import answered %d %+v", code, resp)
	}
	got, err := h.store.Get(context.Background(), "acme", long.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ChunkVectors) < 2 {
		t.Fatalf("imported long memory has %d chunk vectors, want one per chunk", len(got.ChunkVectors))
	}
	exported, _ := h.export(t, "tenant=acme")
	if len(exported) != 1 || exported[0].ChunkVectors != nil {
		t.Fatalf("export: %d records, chunk vectors %v", len(exported), exported)
	}
	code, resp = h.importBody(t, "acme", ndjson(t, exported...))
	if code != http.StatusOK || resp.Skipped != 1 || resp.Imported != 0 {
		t.Fatalf("re-import of an unchanged long memory answered %d %+v, want it skipped", code, resp)
	}
}
