package embedder

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Code is about 2.7 characters per token: a 1,500-character block is one
// chunk by characters but more than the 256 tokens the built-in model reads.
// With the model's Fits, it is embedded by chunks the model reads whole, so
// none of it is cut off unembedded.
func TestChunksFitTheModel(t *testing.T) {
	model := loadModel(t)
	var b strings.Builder
	for i := 0; b.Len() < 1500; i++ {
		fmt.Fprintf(&b, "if err := cfg.Validate(ctx, opts[%d]); err != nil { return fmt.Errorf(\"validate %%d: %%w\", %d, err) }\n", i, i)
	}
	m := memory.Memory{ID: "code", Key: "validation", Content: b.String()}
	if model.Fits(m.Content) {
		t.Fatalf("the test's content (%d chars, %d tokens) fits the model whole: it proves nothing", len(m.Content), model.Tokens(m.Content))
	}

	plain, err := NewVectorizer(model, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if plain.Chunked(m) {
		t.Fatal("without Fits, content under the character limit should be one text (the case this fixes)")
	}

	cfg := testConfig()
	cfg.Chunk.Fits = model.Fits
	v, err := NewVectorizer(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Chunked(m) {
		t.Fatal("content the model would truncate is not chunked")
	}
	texts := v.Texts(m)
	covered := 0
	for i, text := range texts {
		if !model.Fits(text) {
			t.Errorf("chunk %d (%d chars) does not fit the model", i, len(text))
		}
		if !strings.Contains(m.Content, text) {
			t.Errorf("chunk %d is not a piece of the content", i)
		}
		covered = max(covered, strings.Index(m.Content, text)+len(text))
	}
	if covered != len(m.Content) {
		t.Errorf("chunks reach byte %d of %d", covered, len(m.Content))
	}
	es, err := v.Embeddings(context.Background(), []memory.Memory{m})
	if err != nil {
		t.Fatal(err)
	}
	if e := es[0]; len(e.Chunks) != len(texts) || len(e.Vector) != model.Dim() {
		t.Errorf("embedding has %d chunk vectors for %d chunks, vector of %d dims", len(e.Chunks), len(texts), len(e.Vector))
	}
}
