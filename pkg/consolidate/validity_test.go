package consolidate

import (
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// A same-key update closes the older version's valid time at the newer
// statement's time, not at the epoch's: replayed history (statements weeks
// old, read by one epoch today) gets the validity it had when lived.
func TestSupersedeClosesValidTimeAtTheNewerStatement(t *testing.T) {
	f := newFixture(t, "")
	said := f.clock.now().Add(-60 * 24 * time.Hour)
	vim := f.mem("My editor is Vim", memory.TypePreference, memory.SourceAPI)
	vim.Key, vim.CreatedAt, vim.ValidFrom, vim.ModifiedAt = "editor", said, said, said
	helix := f.mem("I switched to Helix", memory.TypePreference, memory.SourceAPI)
	switched := said.Add(21 * 24 * time.Hour)
	helix.Key, helix.CreatedAt, helix.ValidFrom, helix.ModifiedAt = "editor", switched, switched, switched
	f.put(t, vim, helix)
	epochAt := f.clock.now()
	if ev := f.epoch(t); ev.Superseded != 1 {
		t.Fatalf("superseded %d, want 1", ev.Superseded)
	}
	old := f.get(t, vim.ID)
	if old.ValidUntil == nil || !old.ValidUntil.Equal(switched) {
		t.Fatalf("valid_until %v, want the newer statement's %v", old.ValidUntil, switched)
	}
	if old.InvalidAt == nil || old.InvalidAt.Before(epochAt) {
		t.Fatalf("invalid_at %v, want the epoch's clock (≥ %v)", old.InvalidAt, epochAt)
	}
	before := switched.Add(-24 * time.Hour)
	if v := (memory.TimeView{AsOf: before}); !v.Holds(&old) {
		t.Fatal("the old version does not hold as of a day before the update")
	}
}

// Memories superseded before valid_until existed get it at the next
// epoch: their successor's valid_from, or their invalid_at without one.
func TestEpochMigratesValidUntil(t *testing.T) {
	f := newFixture(t, "")
	now := f.clock.now()
	inv := now.Add(-time.Hour)
	next := f.mem("I switched to Helix", memory.TypePreference, memory.SourceAPI)
	next.ValidFrom = now.Add(-10 * 24 * time.Hour)
	old := f.mem("My editor is Vim", memory.TypePreference, memory.SourceAPI)
	old.ValidFrom, old.InvalidAt, old.SupersededBy = now.Add(-30*24*time.Hour), &inv, next.ID
	orphan := f.mem("My shell is bash", memory.TypePreference, memory.SourceAPI)
	orphan.ValidFrom, orphan.InvalidAt, orphan.SupersededBy = now.Add(-30*24*time.Hour), &inv, "gone"
	f.put(t, next, old, orphan)
	f.epoch(t)
	if m := f.get(t, old.ID); m.ValidUntil == nil || !m.ValidUntil.Equal(next.ValidFrom) || !m.InvalidAt.Equal(inv) {
		t.Fatalf("migrated: valid_until %v invalid_at %v, want %v and %v", m.ValidUntil, m.InvalidAt, next.ValidFrom, inv)
	}
	if m := f.get(t, orphan.ID); m.ValidUntil == nil || !m.ValidUntil.Equal(inv) || m.SupersededBy != "gone" {
		t.Fatalf("migrated without successor: valid_until %v superseded_by %q", m.ValidUntil, m.SupersededBy)
	}
	if ops := f.journal.ops(PhaseValidity, "adjust"); len(ops) != 1 {
		t.Fatalf("validity log: %+v", ops)
	}
}

// A project status distilled from replayed session notes is valid from
// the newest note's time, not from the epoch's.
func TestDistilledStatusValidFromTheNewestNote(t *testing.T) {
	f := newFixture(t, llm.LevelAuto)
	f.llm.Handle(script{
		triage:  func(u string) any { return everyHandle(u, "action", "keep") },
		distill: func(string) any { return map[string]any{"status": "Auth migration done; billing export in progress."} },
	}.handle)
	said := f.clock.now().Add(-40 * 24 * time.Hour)
	var notes []memory.Memory
	for i, s := range []string{"Finished the auth migration", "Started the billing export", "Planned the load tests"} {
		n := f.mem(s, memory.TypeEpisode, memory.SourceExit)
		at := said.Add(time.Duration(i) * 24 * time.Hour)
		n.CreatedAt, n.ModifiedAt, n.ValidFrom = at, at, at
		notes = append(notes, n)
	}
	f.put(t, notes...)
	if ev := f.epoch(t); ev.Distilled != 1 {
		t.Fatalf("distilled %d", ev.Distilled)
	}
	for _, m := range f.all(t) {
		if hasTag(&m, TagProjectStatus) && !m.ValidFrom.Equal(notes[2].ValidFrom) {
			t.Fatalf("status valid from %v, want the newest note's %v", m.ValidFrom, notes[2].ValidFrom)
		}
	}
}
