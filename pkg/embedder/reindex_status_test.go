package embedder

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TestReindexStatusFollowsTheRequest: a queued request is recorded queued,
// the run records it done with its counts, a run of an older request does
// not overwrite a newer one's state, and a request that fails for good is
// recorded failed with the reason.
func TestReindexStatusFollowsTheRequest(t *testing.T) {
	cfg := testConfig()
	cfg.ReindexBatch = 2
	a := newFixtureWith(t, cfg, embedtest.Terms{})
	i := 0
	for _, content := range reindexFacts {
		i++
		if err := a.handle(t, fact(content, "acme:s"+string(rune('0'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	clock := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	statuses, err := OpenReindexStatuses(ctx, a.bus.JetStream(), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := statuses.Get(ctx, "acme"); !errors.Is(err, ErrNoReindex) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("state before any request: %v, want ErrNoReindex", err)
	}
	minilm := loadModel(t)
	b := a.on(t, minilm, WithReindexStatuses(statuses))

	if err := statuses.Queue(ctx, "acme", "one"); err != nil {
		t.Fatal(err)
	}
	st, err := statuses.Get(ctx, "acme")
	if err != nil || st.ID != "one" || st.State != ReindexQueued || st.Terminal() || !st.UpdatedAt.Equal(clock) {
		t.Fatalf("queued: %+v, %v", st, err)
	}
	d := &bus.Delivery{Subject: bus.ReindexSubject("acme"), Data: []byte(`{"tenant":"acme","id":"one"}`), NumDelivered: 1}
	if err := b.e.HandleReindex(ctx, d); err != nil {
		t.Fatal(err)
	}
	st, err = statuses.Get(ctx, "acme")
	if err != nil || st.ID != "one" || st.State != ReindexDone || st.Done != len(reindexFacts) || st.Total != len(reindexFacts) || st.Error != "" {
		t.Fatalf("after the run: %+v, %v; want done %d of %d", st, err, len(reindexFacts), len(reindexFacts))
	}
	for _, m := range b.all(t) {
		if m.EmbeddingModel != minilm.Model() {
			t.Fatalf("%s still on %q after a done reindex", m.ID, m.EmbeddingModel)
		}
	}

	// A newer request supersedes: a redelivery of the old one leaves it.
	if err := statuses.Queue(ctx, "acme", "two"); err != nil {
		t.Fatal(err)
	}
	d.NumDelivered = 2
	if err := b.e.HandleReindex(ctx, d); err != nil {
		t.Fatal(err)
	}
	if st, err = statuses.Get(ctx, "acme"); err != nil || st.ID != "two" || st.State != ReindexQueued {
		t.Fatalf("after an older request ran again: %+v, %v; want two queued", st, err)
	}

	// A failing run with retries left is queued with the reason; on its
	// last delivery it is failed.
	cut := errors.New("model gone")
	c := b.on(t, failingModel{Embedder: minilm, err: cut}, WithReindexStatuses(statuses))
	m := b.all(t)[0]
	m.Vector, m.EmbeddingModel = nil, "" // one memory left to embed
	if err := b.store.Upsert(ctx, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	two := &bus.Delivery{Subject: bus.ReindexSubject("acme"), Data: []byte(`{"tenant":"acme","id":"two"}`), NumDelivered: 1}
	if err := c.e.HandleReindex(ctx, two); !errors.Is(err, cut) {
		t.Fatalf("run with a failing model: %v", err)
	}
	if st, err = statuses.Get(ctx, "acme"); err != nil || st.State != ReindexQueued || !strings.Contains(st.Error, "model gone") {
		t.Fatalf("after a failed attempt: %+v, %v; want queued with the reason", st, err)
	}
	two.NumDelivered = reindexMaxDeliver
	if err := c.e.HandleReindex(ctx, two); !errors.Is(err, cut) {
		t.Fatalf("last run with a failing model: %v", err)
	}
	if st, err = statuses.Get(ctx, "acme"); err != nil || st.State != ReindexFailed || !st.Terminal() || !strings.Contains(st.Error, "model gone") {
		t.Fatalf("after the last attempt: %+v, %v; want failed with the reason", st, err)
	}
}

// failingModel answers every embedding request with err.
type failingModel struct {
	embed.Embedder
	err error
}

func (f failingModel) Embed(context.Context, []string) ([][]float32, error) { return nil, f.err }
