package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A correction said in conversation supersedes, without an LLM, the older
// memory whose value it names, keeps it with its history, records the link
// and the reason, promotes the correction, and leaves a memory about
// another subject alone.
func TestCorrectionSupersedesWithoutLLM(t *testing.T) {
	f := newFixture(t, "")
	mysql := f.mem("The staging DB is MySQL 8.", memory.TypeFact, memory.SourceAPI)
	prod := f.mem("The production DB is MySQL 8.", memory.TypeFact, memory.SourceAPI)
	f.put(t, mysql, prod)
	f.epoch(t)
	f.clock.add(2 * time.Hour)
	fix := f.mem("Actually, the staging DB is Postgres 15, not MySQL.", memory.TypeFact, memory.SourceRule)
	fix.Layer = memory.LayerBuffer
	fix.Tags = []string{"correction"}
	f.put(t, fix)
	ev := f.epoch(t)
	if ev.Superseded != 1 {
		t.Fatalf("superseded %d, want 1", ev.Superseded)
	}
	old := f.get(t, mysql.ID)
	if old.InvalidAt == nil || old.SupersededBy != fix.ID || old.Content != mysql.Content {
		t.Fatalf("MySQL memory after the correction: invalid_at %v superseded_by %q content %q", old.InvalidAt, old.SupersededBy, old.Content)
	}
	if m := f.get(t, prod.ID); m.Superseded() {
		t.Fatal("the production DB memory was superseded by a staging correction")
	}
	cur := f.get(t, fix.ID)
	if cur.Superseded() || cur.Layer == memory.LayerBuffer {
		t.Fatalf("the correction: superseded %v layer %s", cur.Superseded(), cur.Layer)
	}
	ops := f.journal.ops(PhaseCorrect, "supersede")
	if len(ops) != 1 || ops[0].MemoryIDs[0] != mysql.ID || ops[0].Decider != DecidedByRule ||
		!strings.Contains(ops[0].Reason, fix.ID) || !strings.Contains(ops[0].Reason, `"MySQL"`) ||
		ops[0].Before[0].InvalidAt != nil || ops[0].After[0].SupersededBy != fix.ID {
		t.Fatalf("audit of the correction: %+v", ops)
	}
	f.clock.add(time.Hour)
	if ev := f.epoch(t); ev.Superseded != 0 {
		t.Fatalf("a later epoch superseded %d", ev.Superseded)
	}
}

// A newer statement is never superseded by an older correction, and a
// correction of another subject of the tenant supersedes nothing.
func TestCorrectionLeavesNewerAndOtherSubjects(t *testing.T) {
	f := newFixture(t, "")
	bob := f.mem("The build server is Jenkins.", memory.TypeFact, memory.SourceAPI)
	bob.Subject = "bob"
	bob.ID = memory.MemoryID(tenant, "default", "bob", bob.Content)
	f.put(t, bob)
	f.epoch(t)
	f.clock.add(time.Hour)
	fix := f.mem("The build server is no longer Jenkins.", memory.TypeFact, memory.SourceRule)
	f.put(t, fix)
	f.epoch(t)
	f.clock.add(time.Hour)
	later := f.mem("The build server is Jenkins again.", memory.TypeFact, memory.SourceAPI)
	f.put(t, later)
	if ev := f.epoch(t); ev.Superseded != 0 {
		t.Fatalf("superseded %d, want 0", ev.Superseded)
	}
	if m := f.get(t, bob.ID); m.Superseded() {
		t.Fatal("another subject's memory was superseded")
	}
}
