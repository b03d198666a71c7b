package embedder

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
)

// gatedModel records the size of each call and holds the first one until
// released, so that callers arriving meanwhile queue up.
type gatedModel struct {
	embedtest.Terms
	mu      sync.Mutex
	sizes   []int
	started chan struct{}
	release chan struct{}
}

func (g *gatedModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.mu.Lock()
	g.sizes = append(g.sizes, len(texts))
	first := len(g.sizes) == 1
	g.mu.Unlock()
	if first {
		close(g.started)
		<-g.release
	}
	return g.Terms.Embed(ctx, texts)
}

func (g *gatedModel) calls() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.sizes)
}

func TestBatcherNaturalBatching(t *testing.T) {
	g := &gatedModel{started: make(chan struct{}), release: make(chan struct{})}
	b := newBatcher(g, 8, 0)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A lone caller runs at once: the model is busy with it (no linger).
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := b.Embed(ctx, "first alone"); err != nil {
			t.Errorf("embed: %v", err)
		}
	})
	<-g.started
	// While it runs, five callers (one with three chunks) queue up...
	results := make([][][]float32, 5)
	for i := range 5 {
		texts := []string{fmt.Sprintf("queued %d", i)}
		if i == 2 {
			texts = []string{"chunk a", "chunk b", "chunk c"}
		}
		wg.Go(func() {
			vecs, err := b.EmbedAll(ctx, texts)
			if err != nil {
				t.Errorf("embed all: %v", err)
			}
			results[i] = vecs
		})
	}
	// ...and wait in the queue while the loop is blocked in the model call.
	deadline := time.Now().Add(time.Minute)
	for len(b.reqs) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 5 callers queued", len(b.reqs))
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(g.release)
	wg.Wait()

	calls := g.calls()
	total := 0
	for _, n := range calls {
		total += n
	}
	if calls[0] != 1 || total != 8 {
		t.Fatalf("model calls %v: want the lone text alone first, 8 texts in all", calls)
	}
	if len(calls) != 2 || calls[1] != 7 {
		t.Errorf("model calls %v: want the 5 queued callers' 7 texts in one call after the first", calls)
	}
	for i, vecs := range results {
		want := 1
		if i == 2 {
			want = 3
		}
		if len(vecs) != want {
			t.Errorf("caller %d got %d vectors, want %d", i, len(vecs), want)
		}
	}
	// Each caller gets its own texts' vectors, in order.
	ref, _ := embedtest.Terms{}.Embed(ctx, []string{"chunk a", "chunk b", "chunk c"})
	for k := range ref {
		if !slices.Equal(ref[k], results[2][k]) {
			t.Errorf("chunk %d: vector of another text", k)
		}
	}
}

func TestBatcherSplitsAtMax(t *testing.T) {
	g := &gatedModel{started: make(chan struct{}), release: make(chan struct{})}
	close(g.release)
	b := newBatcher(g, 4, 0)
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// One request larger than max runs alone, whole.
	vecs, err := b.EmbedAll(ctx, []string{"a", "b", "c", "d", "e", "f"})
	if err != nil || len(vecs) != 6 {
		t.Fatalf("embed all: %d vectors, %v", len(vecs), err)
	}
	if c := g.calls(); len(c) != 1 || c[0] != 6 {
		t.Errorf("model calls %v, want one of 6", c)
	}
}
