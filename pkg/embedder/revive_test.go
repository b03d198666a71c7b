package embedder

import (
	"context"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestRevive(t *testing.T) {
	invalid := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	before, after := invalid.Add(-time.Hour), invalid.Add(time.Hour)
	valid := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		m                memory.Memory
		at               time.Time
		changed          bool
		superseded, arch bool
		validFrom        time.Time
	}{
		{"current: nothing to do", memory.Memory{ValidFrom: valid}, after, false, false, false, valid},
		{"superseded, said again later", memory.Memory{ValidFrom: valid, InvalidAt: &invalid, SupersededBy: "x"}, after, true, false, false, after},
		{"superseded, said at the supersession", memory.Memory{ValidFrom: valid, InvalidAt: &invalid, SupersededBy: "x"}, invalid, true, false, false, invalid},
		{"superseded, an older statement", memory.Memory{ValidFrom: valid, InvalidAt: &invalid, SupersededBy: "x"}, before, false, true, false, valid},
		{"archived", memory.Memory{ValidFrom: valid, Archived: true}, before, true, false, false, before},
		{"archived and superseded, an older statement", memory.Memory{ValidFrom: valid, Archived: true, InvalidAt: &invalid, SupersededBy: "x"}, before, true, true, false, valid},
		{"archived and superseded, said again later", memory.Memory{ValidFrom: valid, Archived: true, InvalidAt: &invalid, SupersededBy: "x"}, after, true, false, false, after},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			if got := revive(&m, tt.at); got != tt.changed {
				t.Fatalf("revive = %v, want %v", got, tt.changed)
			}
			if m.Superseded() != tt.superseded || (m.SupersededBy != "") != tt.superseded || m.Archived != tt.arch || !m.ValidFrom.Equal(tt.validFrom) {
				t.Fatalf("after revive: invalid_at %v superseded_by %q archived %v valid_from %v", m.InvalidAt, m.SupersededBy, m.Archived, m.ValidFrom)
			}
		})
	}
}

// TestRestatedMemoryIsRevived: a superseded or archived memory said again
// (its exact text, or a near duplicate saying the same thing) is current
// again; a redelivery, or a statement older than the supersession, is not
// a restatement.
func TestRestatedMemoryIsRevived(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	const content = "The user prefers tabs over spaces in Go code."
	first := fact(content, "acme:e1")
	t0 := first.Memory.CreatedAt
	if err := f.handle(t, first); err != nil {
		t.Fatal(err)
	}
	id := first.Memory.ID
	edit := func(change func(*memory.Memory)) {
		t.Helper()
		m, err := f.store.Get(ctx, "acme", id)
		if err != nil {
			t.Fatal(err)
		}
		change(&m)
		if err := f.store.Upsert(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	get := func() memory.Memory {
		t.Helper()
		m, err := f.store.Get(ctx, "acme", id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	restate := func(text, source string, at time.Time) {
		t.Helper()
		m := fact(text, source)
		m.Memory.CreatedAt, m.Memory.ModifiedAt = at, at
		if err := f.handle(t, m); err != nil {
			t.Fatal(err)
		}
	}
	supersede := func(at time.Time) {
		t.Helper()
		edit(func(m *memory.Memory) { m.InvalidAt, m.SupersededBy = &at, "00000000-0000-5000-8000-000000000001" })
	}

	invalid := t0.Add(24 * time.Hour)
	supersede(invalid)
	restate(content, "acme:e1", t0) // redelivery
	restate(content, "acme:e0", t0.Add(time.Hour))
	if m := get(); !m.Superseded() || m.SupersededBy == "" || m.RepetitionCount != 2 {
		t.Fatalf("after a redelivery and an older statement: %+v, want superseded, repetition 2", m)
	}

	later := invalid.Add(time.Hour)
	restate(content, "acme:e2", later)
	m := get()
	if m.Superseded() || m.SupersededBy != "" || m.Archived || !m.ValidFrom.Equal(later) || m.RepetitionCount != 3 {
		t.Fatalf("said again after its supersession: %+v, want current, valid from %v, repetition 3", m, later)
	}

	archivedAt := later.Add(time.Hour)
	edit(func(m *memory.Memory) { m.Archived = true })
	restate(content, "acme:e3", archivedAt)
	if m := get(); m.Archived || !m.ValidFrom.Equal(archivedAt) || m.RepetitionCount != 4 {
		t.Fatalf("said again after its archiving: %+v, want unarchived, valid from %v", m, archivedAt)
	}

	// A near duplicate saying the same thing (another id: punctuation and
	// case differ) revives it too.
	nearAt := archivedAt.Add(time.Hour)
	supersede(nearAt.Add(-time.Minute))
	restate("the user prefers tabs over spaces in go code!", "acme:e4", nearAt)
	if mems := f.all(t); len(mems) != 1 {
		t.Fatalf("%d memories after a near duplicate, want 1", len(mems))
	}
	if m := get(); m.Superseded() || !m.ValidFrom.Equal(nearAt) || m.RepetitionCount != 5 {
		t.Fatalf("said again in other words: %+v, want current, valid from %v", m, nearAt)
	}
	if got := counterValue(t, f.e.outcomes.WithLabelValues("revived")); got != 3 {
		t.Fatalf("revived counted %g times, want 3", got)
	}
}
