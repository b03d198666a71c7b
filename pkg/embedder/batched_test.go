package embedder

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestBatchedVectorizerMatchesDirect embeds long and short memories from
// concurrent callers through the batcher, which packs chunks of several
// memories into one model call, and wants each memory's vector and chunk
// vectors as the direct path gives them, one memory per call: nothing lost,
// duplicated or handed to the wrong memory.
func TestBatchedVectorizerMatchesDirect(t *testing.T) {
	model := loadModel(t)
	cfg := testConfig()
	cfg.BatchSize = 5 // smaller than one long memory's chunks: requests are held and split across calls
	batched, closeB, err := NewBatchedVectorizer(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer closeB()
	direct, err := NewVectorizer(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mems []memory.Memory
	for i := range 8 {
		m := longMemory()
		m.ID = fmt.Sprintf("long-%d", i)
		m.Content = strings.Repeat(fmt.Sprintf("Service %d restarted after the deploy. ", i), i*10) + m.Content
		mems = append(mems, m)
		mems = append(mems, memory.Memory{ID: fmt.Sprintf("short-%d", i), Key: "k", Content: fmt.Sprintf("fact number %d", i)})
	}
	want := make([]Embedding, len(mems))
	for i := range mems {
		e, err := direct.Embeddings(context.Background(), mems[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = e[0]
	}
	got := make([]Embedding, len(mems))
	var wg sync.WaitGroup
	errs := make([]error, len(mems))
	for i := range mems {
		wg.Go(func() {
			e, err := batched.Embeddings(context.Background(), mems[i:i+1])
			if err == nil {
				got[i] = e[0]
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range mems {
		if errs[i] != nil {
			t.Fatalf("memory %s: %v", mems[i].ID, errs[i])
		}
		if n := len(batched.Texts(mems[i])); n > 1 && len(got[i].Chunks) != n || n == 1 && got[i].Chunks != nil {
			t.Fatalf("memory %s: %d chunk vectors for %d texts", mems[i].ID, len(got[i].Chunks), n)
		}
		if len(got[i].Chunks) != len(want[i].Chunks) {
			t.Fatalf("memory %s: %d chunk vectors batched, %d direct", mems[i].ID, len(got[i].Chunks), len(want[i].Chunks))
		}
		// Packed with other sequences a row runs through the same
		// products; only the tile a row falls in differs.
		if c := dot(got[i].Vector, want[i].Vector); c < 1-1e-5 {
			t.Errorf("memory %s: vector cosine %.7f between batched and direct", mems[i].ID, c)
		}
		for j := range got[i].Chunks {
			if c := dot(got[i].Chunks[j], want[i].Chunks[j]); c < 1-1e-5 {
				t.Errorf("memory %s chunk %d: cosine %.7f between batched and direct", mems[i].ID, j, c)
			}
		}
	}
}
