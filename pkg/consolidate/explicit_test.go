package consolidate

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/extract"
	"github.com/recollect-dev/recollect/pkg/ingest"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// pipeline starts the real extractor and embedder over the fixture's bus
// and store: events in, memories stored as production stores them.
func (f *fixture) pipeline(t *testing.T) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	x, err := extract.New(extract.DefaultConfig(), f.b, prometheus.NewRegistry(), quiet, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var ecfg embedder.Config
	ecfg.RegisterFlags("", pflag.NewFlagSet("embedder", pflag.ContinueOnError))
	e, err := embedder.New(ecfg, f.st, f.b, embedtest.Terms{}, prometheus.NewRegistry(), quiet, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []interface {
		Start(context.Context) error
		Stop(context.Context) error
	}{x, e} {
		if err := m.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.Stop(context.Background()) })
	}
}

// publish sends an event as ingest does.
func (f *fixture) publish(t *testing.T, e memory.Event) {
	t.Helper()
	e.Tenant, e.Subject, e.TS = tenant, "u1", f.clock.now()
	if err := e.Normalize(f.clock.now()); err != nil {
		t.Fatal(err)
	}
	msg, err := ingest.EventMsg(&e)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.b.Publish(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls the store until a current memory with content holds
// repetitions statements.
func (f *fixture) waitFor(t *testing.T, content string, repetitions int) memory.Memory {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, m := range f.all(t) {
			if m.Content == content && m.RepetitionCount >= repetitions {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q was not stored %d times within 30s: %+v", content, repetitions, f.all(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 19 item 4: a preference learned explicitly and restated three
// times starts at the importance of an explicit preference, gains with
// each restatement and reaches core through the same gate, no later than
// the same kind of preference inferred from turns and said as often. An
// explicit episode and an explicit session note stay in the buffer and
// are never archived, even below the drop threshold.
func TestExplicitPreferenceReachesCore(t *testing.T) {
	f := newFixture(t, "")
	f.pipeline(t)
	const (
		learned  = "The user prefers tabs over spaces in Go code."
		inferred = "I prefer dark themes in every editor."
	)
	for i := range 4 {
		f.publish(t, memory.Event{ID: fmt.Sprintf("learn-%d", i), Type: memory.EventMemory,
			Memory: &memory.MemoryInput{Content: learned, Type: memory.TypePreference}})
		f.publish(t, memory.Event{ID: fmt.Sprintf("turn-%d", i), Type: memory.EventTurn, Role: "user", SessionID: fmt.Sprintf("s%d", i),
			Content: inferred})
	}
	f.publish(t, memory.Event{ID: "episode", Type: memory.EventMemory,
		Memory: &memory.MemoryInput{Content: "We shipped release 4.2 to production on Friday.", Type: memory.TypeEpisode}})
	f.publish(t, memory.Event{ID: "note", Type: memory.EventMemory,
		Memory: &memory.MemoryInput{Content: "Session summary: refactored the billing export.", Type: memory.TypeEpisode, Tags: []string{TagSession}}})
	l := f.waitFor(t, learned, 4)
	var inf memory.Memory
	for deadline := time.Now().Add(30 * time.Second); inf.ID == ""; time.Sleep(20 * time.Millisecond) {
		for _, m := range f.all(t) {
			if m.Source == memory.SourceRule && m.Type == memory.TypePreference {
				inf = m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no preference captured from the turns: %+v", f.all(t))
		}
	}
	inf = f.waitFor(t, inf.Content, 4)
	if !l.Explicit() || l.Importance < inf.Importance {
		t.Fatalf("explicit preference at importance %v (explicit %v), inferred at %v", l.Importance, l.Explicit(), inf.Importance)
	}
	episode, note := f.waitFor(t, "We shipped release 4.2 to production on Friday.", 1), f.waitFor(t, "Session summary: refactored the billing export.", 1)
	// Decayed below the drop threshold: an inferred one would be archived.
	for _, id := range []string{episode.ID, note.ID} {
		m := f.get(t, id)
		m.Importance = 0.005
		if err := f.st.UpdatePayload(t.Context(), tenant, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}

	core := map[string]int{}
	for epoch := 1; epoch <= 30; epoch++ {
		f.clock.add(time.Hour)
		f.epoch(t)
		for _, id := range []string{l.ID, inf.ID} {
			if _, done := core[id]; !done && f.get(t, id).Layer == memory.LayerCore {
				core[id] = epoch
			}
		}
		for _, id := range []string{episode.ID, note.ID} {
			if m := f.get(t, id); m.Layer != memory.LayerBuffer || m.Archived {
				t.Fatalf("epoch %d: explicit %q in %s, archived %v", epoch, m.Content, m.Layer, m.Archived)
			}
		}
	}
	if core[inf.ID] == 0 || core[l.ID] == 0 || core[l.ID] > core[inf.ID] {
		t.Fatalf("epoch reaching core: explicit %d, inferred %d (0: never)", core[l.ID], core[inf.ID])
	}
	t.Logf("core at epoch %d (explicit, importance %.2f) and %d (inferred, %.2f)", core[l.ID], l.Importance, core[inf.ID], inf.Importance)
}
