package coalesce_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/embed/coalesce"
)

// gated is a real embedder (embedtest.Terms) whose calls each wait for a
// release, and which records the texts of every call.
type gated struct {
	embedtest.Terms
	started chan []string
	release chan error
}

func newGated() *gated {
	return &gated{started: make(chan []string, 16), release: make(chan error)}
}

func (g *gated) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.started <- slices.Clone(texts)
	if err := <-g.release; err != nil {
		return nil, err
	}
	return g.Terms.Embed(ctx, texts)
}

type result struct {
	vecs [][]float32
	err  error
}

func embedAsync(ctx context.Context, e *coalesce.Embedder, texts ...string) chan result {
	out := make(chan result, 1)
	go func() {
		v, err := e.Embed(ctx, texts)
		out <- result{v, err}
	}()
	return out
}

func want(t *testing.T, texts ...string) [][]float32 {
	t.Helper()
	v, err := embedtest.Terms{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sameVecs(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool { return slices.Equal(x, y) })
}

// waitQueued gives the queued callers time to enqueue: they cannot signal
// it, and an early release would only split the batch, failing the test.
func waitQueued(t *testing.T, e *coalesce.Embedder, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.Queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", e.Queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestIdleCallRunsAlone(t *testing.T) {
	g := newGated()
	e := coalesce.New(g, 8)
	r := embedAsync(context.Background(), e, "alpha beta")
	if got := <-g.started; !slices.Equal(got, []string{"alpha beta"}) {
		t.Fatalf("first model call got %v", got)
	}
	g.release <- nil
	res := <-r
	if res.err != nil || !sameVecs(res.vecs, want(t, "alpha beta")) {
		t.Fatalf("idle call: %v", res.err)
	}
}

func TestBusyCallsMergeInOrderAndSplitAtMax(t *testing.T) {
	g := newGated()
	e := coalesce.New(g, 4)
	ctx := context.Background()
	first := embedAsync(ctx, e, "first")
	<-g.started // the model is now busy
	var rs []chan result
	inputs := [][]string{{"a one", "a two"}, {"b"}, {"c"}, {"d one", "d two"}}
	for i, in := range inputs {
		rs = append(rs, embedAsync(ctx, e, in...))
		waitQueued(t, e, i+1)
	}
	g.release <- nil
	// Queued calls go together while their texts fit in max (4): a, b, c
	// (4 texts), then d.
	if got := <-g.started; !slices.Equal(got, []string{"a one", "a two", "b", "c"}) {
		t.Fatalf("second model call got %v", got)
	}
	g.release <- nil
	if got := <-g.started; !slices.Equal(got, []string{"d one", "d two"}) {
		t.Fatalf("third model call got %v", got)
	}
	g.release <- nil
	if res := <-first; res.err != nil || !sameVecs(res.vecs, want(t, "first")) {
		t.Fatalf("first: %v", res.err)
	}
	for i, r := range rs {
		res := <-r
		if res.err != nil || !sameVecs(res.vecs, want(t, inputs[i]...)) {
			t.Fatalf("call %d got the wrong vectors (%v)", i, res.err)
		}
	}
	// Idle again: the next call runs alone.
	r := embedAsync(ctx, e, "later")
	if got := <-g.started; !slices.Equal(got, []string{"later"}) {
		t.Fatalf("after the queue drained, a call got %v", got)
	}
	g.release <- nil
	<-r
}

func TestErrorsAndCancellation(t *testing.T) {
	g := newGated()
	e := coalesce.New(g, 8)
	ctx := context.Background()
	first := embedAsync(ctx, e, "first")
	<-g.started
	cctx, cancel := context.WithCancel(ctx)
	gone := embedAsync(cctx, e, "abandoned")
	waitQueued(t, e, 1)
	stays := embedAsync(ctx, e, "stays")
	waitQueued(t, e, 2)
	cancel()
	if res := <-gone; !errors.Is(res.err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", res.err)
	}
	boom := fmt.Errorf("model down")
	g.release <- boom
	if res := <-first; !errors.Is(res.err, boom) {
		t.Fatalf("first: %v, want the model's error", res.err)
	}
	// The cancelled call is left out of the merged call.
	if got := <-g.started; !slices.Equal(got, []string{"stays"}) {
		t.Fatalf("merged call got %v", got)
	}
	g.release <- boom
	if res := <-stays; !errors.Is(res.err, boom) {
		t.Fatalf("merged caller: %v, want the model's error", res.err)
	}
}

// TestConcurrentCallersGetTheirOwnVectors hammers the coalescer with the
// real (ungated) embedder: every caller gets exactly its texts' vectors.
func TestConcurrentCallersGetTheirOwnVectors(t *testing.T) {
	e := coalesce.New(embedtest.Terms{}, 16)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			for j := range 50 {
				texts := []string{fmt.Sprintf("caller %d text %d", i, j), fmt.Sprintf("word%d other%d", i, j)}
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					errs <- err
					return
				}
				if !sameVecs(got, want(t, texts...)) {
					errs <- fmt.Errorf("caller %d call %d got another caller's vectors", i, j)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
