package embedder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

var (
	modelOnce sync.Once
	model     *minilm.Model
	modelErr  error
)

func loadModel(t *testing.T) *minilm.Model {
	modelOnce.Do(func() { model, modelErr = minilm.Load() })
	if modelErr != nil {
		t.Fatal(modelErr)
	}
	return model
}

type fixture struct {
	e     *Embedder
	store store.Store
	bus   *bus.Bus
}

// testConfig is the flags' defaults with small batches and few deliveries.
func testConfig() Config {
	var cfg Config
	cfg.RegisterFlags("", pflag.NewFlagSet("test", pflag.ContinueOnError))
	cfg.Concurrency, cfg.BatchSize, cfg.BatchLinger = 4, 8, time.Millisecond
	cfg.HandlerTimeout, cfg.MaxDeliver = 10*time.Second, 3
	return cfg
}

func newFixture(t *testing.T, opts ...Option) fixture {
	t.Helper()
	return newFixtureWith(t, testConfig(), loadModel(t), opts...)
}

func newFixtureWith(t *testing.T, cfg Config, model embed.Embedder, opts ...Option) fixture {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bus.Open(context.Background(), bus.Config{DataDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	e, err := New(cfg, st, b, model, prometheus.NewRegistry(), log, now, opts...)
	if err != nil {
		t.Fatal(err)
	}
	e.batch = newBatcher(e.model, cfg.BatchSize, cfg.BatchLinger)
	t.Cleanup(e.batch.Close)
	return fixture{e: e, store: st, bus: b}
}

func fact(content, source string) memory.FactMessage {
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return memory.FactMessage{Op: memory.FactUpsert, Tenant: "acme", SourceEvent: source, Memory: memory.Memory{
		ID: memory.MemoryID("acme", "default", "alice", content), Tenant: "acme", Namespace: "default", Subject: "alice",
		Content: content, Domain: "user-preferences", Type: memory.TypePreference, Kind: memory.KindSemantic,
		Layer: memory.LayerBuffer, Importance: 0.7, Confidence: 0.9, Source: memory.SourceRule, CreatedAt: ts, ModifiedAt: ts,
		SourceIDs: []string{source}}}
}

func (f fixture) handle(t *testing.T, m memory.FactMessage) error {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return f.e.Handle(context.Background(), &bus.Delivery{Subject: bus.FactSubject(m.Memory.Domain), Data: data, NumDelivered: 1})
}

func (f fixture) all(t *testing.T) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	if err := f.store.Scroll(context.Background(), "acme", store.Filter{}, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRedeliveryStoresOnce(t *testing.T) {
	f := newFixture(t)
	m := fact("User prefers tabs over spaces.", "acme:e1")
	for i := 0; i < 3; i++ {
		if err := f.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != 1 || mems[0].RepetitionCount != 1 || len(mems[0].Vector) != 384 || mems[0].EmbeddingModel != "all-MiniLM-L6-v2" {
		t.Fatalf("stored %+v", mems)
	}
}

func TestRepeatFromAnotherEventReinforces(t *testing.T) {
	f := newFixture(t)
	if err := f.handle(t, fact("User prefers tabs over spaces.", "acme:e1")); err != nil {
		t.Fatal(err)
	}
	// Same words, other casing and spacing: same id; a near paraphrase: same memory by cosine.
	for _, m := range []memory.FactMessage{fact("user prefers tabs over  spaces.", "acme:e2"), fact("The user prefers tabs over spaces.", "acme:e3"), fact("The user prefers tabs over spaces.", "acme:e3")} {
		if err := f.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != 1 {
		t.Fatalf("%d memories, want 1: %+v", len(mems), mems)
	}
	if mems[0].RepetitionCount != 3 || len(mems[0].SourceIDs) != 3 {
		t.Fatalf("repetition %d sources %v, want 3 and 3", mems[0].RepetitionCount, mems[0].SourceIDs)
	}
	// A different fact is its own memory.
	if err := f.handle(t, fact("Always run make test before committing.", "acme:e4")); err != nil {
		t.Fatal(err)
	}
	if n := len(f.all(t)); n != 2 {
		t.Fatalf("%d memories, want 2", n)
	}
}

func TestFeedbackCountsOncePerEvent(t *testing.T) {
	f := newFixture(t)
	m := fact("Deploy with make release then tag the commit.", "acme:e1")
	if err := f.handle(t, m); err != nil {
		t.Fatal(err)
	}
	fb := memory.FactMessage{Op: memory.FactFeedback, Tenant: "acme", SourceEvent: "acme:fb1", Feedback: &memory.Feedback{MemoryID: m.Memory.ID, Success: true}}
	for i := 0; i < 2; i++ {
		if err := f.handle(t, fb); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.all(t)[0].SuccessCount; got != 1 {
		t.Fatalf("success count %d, want 1", got)
	}
	fb.Feedback.MemoryID = "00000000-0000-5000-8000-000000000000"
	if err := f.handle(t, fb); !bus.IsPermanent(err) {
		t.Fatalf("feedback on unknown memory: err = %v, want permanent", err)
	}
}

func TestBadFactsArePermanent(t *testing.T) {
	f := newFixture(t)
	bad := fact("x", "acme:e1")
	bad.Memory.Tenant = "globex"
	if err := f.handle(t, bad); !bus.IsPermanent(err) {
		t.Fatalf("tenant mismatch: err = %v", err)
	}
	bad = fact("x", "acme:e1")
	bad.Memory.Type = "nope"
	if err := f.handle(t, bad); !bus.IsPermanent(err) || !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("invalid type: err = %v", err)
	}
	err := f.e.Handle(context.Background(), &bus.Delivery{Data: []byte("{"), NumDelivered: 1})
	if !bus.IsPermanent(err) {
		t.Fatalf("undecodable: err = %v", err)
	}
}

func TestConcurrentObservationsAllCount(t *testing.T) {
	f := newFixture(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- f.handle(t, fact("User prefers dark mode in every editor.", "acme:c"+string(rune('a'+i))))
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != 1 || mems[0].RepetitionCount != n || len(mems[0].SourceIDs) != n {
		t.Fatalf("got %d memories, repetition %d, %d sources; want 1, %d, %d", len(mems), mems[0].RepetitionCount, len(mems[0].SourceIDs), n, n)
	}
}

// Two replicas (their id locks apart) reinforcing one memory at once lose
// no observation: each write is conditional on its read, and a lost race
// reads and reinforces again.
func TestReplicasReinforcingAtOnceAllCount(t *testing.T) {
	f := newFixture(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	other, err := New(testConfig(), f.store, f.bus, loadModel(t), prometheus.NewRegistry(), log, now)
	if err != nil {
		t.Fatal(err)
	}
	other.batch = newBatcher(other.model, 8, time.Millisecond)
	t.Cleanup(other.batch.Close)
	replicas := []fixture{f, {e: other, store: f.store, bus: f.bus}}
	const content = "User prefers dark mode in every editor."
	if err := f.handle(t, fact(content, "acme:first")); err != nil {
		t.Fatal(err)
	}
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- replicas[i%2].handle(t, fact(content, fmt.Sprintf("acme:r%d", i))) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	mems := f.all(t)
	if len(mems) != 1 || mems[0].RepetitionCount != n+1 || len(mems[0].SourceIDs) != n+1 {
		t.Fatalf("got %d memories, repetition %d, %d sources; want 1, %d, %d", len(mems), mems[0].RepetitionCount, len(mems[0].SourceIDs), n+1, n+1)
	}
}
