package embedder

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
	"github.com/recollect-dev/recollect/pkg/store"
)

// reindexFacts each have one word no other has, for lexical checks.
var reindexFacts = map[string]string{
	"kubernetes": "The team deploys the backend to kubernetes with helm charts.",
	"espresso":   "User drinks an espresso before every standup meeting.",
	"postgres":   "The billing service stores invoices in postgres.",
	"vim":        "User edits configuration files in vim.",
	"tuesday":    "Release candidates are cut every tuesday afternoon.",
}

// on builds another embedder on the fixture's store and bus, as a restarted
// process with a different model would be.
func (f fixture) on(t *testing.T, model embed.Embedder, opts ...Option) fixture {
	t.Helper()
	g := f.e
	e, err := New(g.cfg, f.store, f.bus, model, nil, g.log, g.now, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.batch = newBatcher(model, g.cfg.BatchSize, g.cfg.BatchLinger)
	t.Cleanup(e.batch.Close)
	return fixture{e: e, store: f.store, bus: f.bus}
}

// checkFindable asserts every memory is still found lexically, and that a
// dense search with the new model's query vector works.
func (f fixture) checkFindable(t *testing.T, newModel embed.Embedder) {
	t.Helper()
	ctx := context.Background()
	for word := range reindexFacts {
		hits, err := f.store.SearchText(ctx, store.TextQuery{Tenant: "acme", Text: word, K: 3})
		if err != nil || len(hits) == 0 {
			t.Fatalf("lexical search for %q: %d hits, err %v", word, len(hits), err)
		}
	}
	q, err := newModel.Embed(ctx, []string{"which database holds invoices"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Search(ctx, store.Query{Tenant: "acme", Vector: q[0], K: 3}); err != nil {
		t.Fatalf("dense search with the new model: %v", err)
	}
}

func TestReindexMovesTenantToNewModel(t *testing.T) {
	cfg := testConfig()
	cfg.ReindexBatch = 2
	a := newFixtureWith(t, cfg, embedtest.Terms{}) // model A: 256 dims
	i := 0
	for _, content := range reindexFacts {
		i++
		if err := a.handle(t, fact(content, "acme:r"+string(rune('0'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range a.all(t) {
		if m.EmbeddingModel != "terms" || len(m.Vector) != embedtest.TermDim {
			t.Fatalf("before: %s on %q with %d dims", m.ID, m.EmbeddingModel, len(m.Vector))
		}
	}
	minilm := loadModel(t)
	locks := memlock.New()
	b := a.on(t, minilm, WithLocker(locks)) // model B: MiniLM, 384 dims
	ctx := context.Background()

	// A run that dies after three batches leaves every memory findable.
	batches := 0
	crash := errors.New("crash")
	err := b.e.Reindex(ctx, "acme", "first", func() error {
		b.checkFindable(t, minilm)
		if batches++; batches == 3 {
			return crash
		}
		return nil
	})
	if !errors.Is(err, crash) {
		t.Fatalf("interrupted run: %v", err)
	}
	state := map[string]int{}
	for _, m := range b.all(t) {
		state[m.EmbeddingModel]++
	}
	if state["terms"] != 0 || state[minilm.Model()] == 0 || state[""] == 0 {
		t.Fatalf("after the interrupted run: %v, want no old model and some of both new and pending", state)
	}

	// While another worker holds the tenant's lease, a request waits.
	held, err := locks.Acquire(ctx, "reindex:acme", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := RequestReindex(ctx, b.bus, "acme", "second"); err != nil {
		t.Fatal(err)
	}
	d := &bus.Delivery{Subject: bus.ReindexSubject("acme"), Data: []byte(`{"tenant":"acme","id":"second"}`), NumDelivered: 1}
	if err := b.e.HandleReindex(ctx, d); !errors.Is(err, lock.ErrHeld) || bus.IsPermanent(err) {
		t.Fatalf("reindex under a held lease: %v", err)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// The request published above, delivered through JetStream, finishes
	// the job.
	if err := b.e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.e.Stop(context.Background()) })
	deadline := time.Now().Add(20 * time.Second)
	for {
		mems, done := b.all(t), 0
		for _, m := range mems {
			if m.EmbeddingModel == minilm.Model() && len(m.Vector) == minilm.Dim() {
				done++
			}
		}
		if done == len(reindexFacts) && len(mems) == len(reindexFacts) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d memories on the new model", done, len(mems))
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.checkFindable(t, minilm)
	q, err := minilm.Embed(ctx, []string{"which database holds invoices"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := b.store.Search(ctx, store.Query{Tenant: "acme", Vector: q[0], K: 1})
	if err != nil || len(hits) != 1 || hits[0].Memory.Content != reindexFacts["postgres"] {
		t.Fatalf("dense search on the new model: %+v, %v", hits, err)
	}

	// Done is done: another run writes nothing.
	before := counterValue(t, b.e.reindexN.WithLabelValues("embedded"))
	if err := b.e.Reindex(ctx, "acme", "third", nil); err != nil {
		t.Fatal(err)
	}
	if after := counterValue(t, b.e.reindexN.WithLabelValues("embedded")); after != before {
		t.Fatalf("a finished tenant was re-embedded again (%g → %g)", before, after)
	}
}

func TestReindexRequestValidation(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct{ name, data string }{
		{"undecodable", "{"},
		{"bad tenant", `{"tenant":"a b","id":"x"}`},
		{"no id", `{"tenant":"acme"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := f.e.HandleReindex(context.Background(), &bus.Delivery{Data: []byte(tt.data), NumDelivered: 1})
			if !bus.IsPermanent(err) {
				t.Fatalf("err = %v, want permanent", err)
			}
		})
	}
	if err := RequestReindex(context.Background(), f.bus, "a b", "x"); err == nil {
		t.Fatal("request for an invalid tenant accepted")
	}
}

// TestNewModelBeforeReindexStoresPending: after a model change and before
// a reindex, a new fact cannot be stored next to the tenant's old-width
// vectors; it is stored without a vector (found by BM25) instead of being
// retried into the dead letters, and the reindex embeds it.
func TestNewModelBeforeReindexStoresPending(t *testing.T) {
	a := newFixtureWith(t, testConfig(), embedtest.Terms{})
	if err := a.handle(t, fact(reindexFacts["postgres"], "acme:old")); err != nil {
		t.Fatal(err)
	}
	minilm := loadModel(t)
	b := a.on(t, minilm)
	late := fact(reindexFacts["espresso"], "acme:late")
	if err := b.handle(t, late); err != nil {
		t.Fatalf("a fact after the model change: %v", err)
	}
	ctx := context.Background()
	m, err := b.store.Get(ctx, "acme", late.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Vector) != 0 || m.EmbeddingModel != "" {
		t.Fatalf("late fact stored with %d dims on %q, want pending", len(m.Vector), m.EmbeddingModel)
	}
	if got := counterValue(t, b.e.reindexN.WithLabelValues("deferred")); got != 1 {
		t.Fatalf("deferred counter = %g, want 1", got)
	}
	if hits, err := b.store.SearchText(ctx, store.TextQuery{Tenant: "acme", Text: "espresso", K: 1}); err != nil || len(hits) != 1 {
		t.Fatalf("pending fact not found lexically: %d hits, %v", len(hits), err)
	}
	if err := b.e.Reindex(ctx, "acme", "after", nil); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.all(t) {
		if m.EmbeddingModel != minilm.Model() || len(m.Vector) != minilm.Dim() {
			t.Fatalf("%s on %q with %d dims after reindex", m.ID, m.EmbeddingModel, len(m.Vector))
		}
	}
}
