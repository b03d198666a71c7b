package consolidate

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// transcript is a transcript memory said at ts.
func (f *fixture) transcript(i int, ts time.Time) memory.Memory {
	m := f.mem(fmt.Sprintf("user: message %d of the conversation about the garden", i), memory.TypeEpisode, memory.SourceTurn)
	m.Tags, m.Importance, m.Session, m.Key = []string{memory.TranscriptTag}, 0.2, "s1", "transcript/s1"
	m.CreatedAt, m.ValidFrom, m.ModifiedAt = ts, ts, ts
	return m
}

// TestTranscriptsOutsideTheLifecycle: transcript memories are not counted
// by the buffer cap, not decayed, promoted nor archived by any lifecycle
// policy, over many epochs; the inferred memories beside them still are.
func TestTranscriptsOutsideTheLifecycle(t *testing.T) {
	f := newFixture(t, "", func(c *Config) { c.Rules.BufferCap = 5 })
	start := f.clock.now().Add(-30 * 24 * time.Hour)
	var ms []memory.Memory
	for i := range 40 {
		ms = append(ms, f.transcript(i, start.Add(time.Duration(i)*time.Minute)))
	}
	for i := range 8 {
		ms = append(ms, f.mem(fmt.Sprintf("Inferred fact %d about the office", i), memory.TypeFact, memory.SourceTurn))
	}
	f.put(t, ms...)
	for range 5 {
		f.epoch(t)
		f.clock.add(24 * time.Hour)
	}
	var archivedFacts int
	for _, m := range f.all(t) {
		switch {
		case m.Transcript():
			if m.Archived || m.Superseded() || m.Layer != memory.LayerBuffer || m.Importance != 0.2 {
				t.Fatalf("transcript memory touched by the lifecycle: %+v", m)
			}
		case m.Archived:
			archivedFacts++
		}
	}
	if archivedFacts != 3 {
		t.Fatalf("%d inferred memories archived by the buffer cap of 5 over 8, want 3 (transcripts must not count)", archivedFacts)
	}
}

// TestTranscriptRetention: an operator's age and count limits archive the
// oldest transcript memories (never delete them), audited, bounded per
// epoch.
func TestTranscriptRetention(t *testing.T) {
	f := newFixture(t, "", func(c *Config) {
		c.Rules.TranscriptMaxAge, c.Rules.TranscriptKeep, c.Rules.MaxArchivePerEpoch = 10*24*time.Hour, 20, 15
	})
	now := f.clock.now()
	var ms []memory.Memory
	for i := range 10 { // said 20 days ago: past the age
		ms = append(ms, f.transcript(i, now.Add(-20*24*time.Hour+time.Duration(i)*time.Minute)))
	}
	for i := 10; i < 40; i++ { // recent: 30 of them, 10 over the count
		ms = append(ms, f.transcript(i, now.Add(-time.Hour+time.Duration(i)*time.Second)))
	}
	f.put(t, ms...)
	archived := func() (n int) {
		for _, m := range f.all(t) {
			if m.Archived {
				n++
			}
		}
		return n
	}
	f.epoch(t)
	if n := archived(); n != 15 {
		t.Fatalf("%d archived after one epoch, want 15 (the per-epoch bound)", n)
	}
	f.clock.add(time.Hour)
	f.epoch(t)
	if n := archived(); n != 20 {
		t.Fatalf("%d archived after two epochs, want 20 (10 by age, 10 over the count of 20)", archived())
	}
	for _, m := range f.all(t) {
		recent := m.ValidFrom.After(now.Add(-2 * time.Hour))
		if m.Archived && recent && m.ValidFrom.After(now.Add(-time.Hour+19*time.Second)) {
			t.Fatalf("a recent transcript archived before older ones: %s", m.Content)
		}
	}
	if len(f.all(t)) != 40 {
		t.Fatal("a transcript memory was deleted")
	}
	if ops := f.journal.ops(PhaseArchive, "archive"); len(ops) != 20 {
		t.Fatalf("%d archive operations audited, want 20", len(ops))
	}
}
