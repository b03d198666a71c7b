package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	auditjsonl "github.com/recollect-dev/recollect/pkg/auditlog/jsonl"
	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestAuditJournal(t *testing.T) {
	l, err := auditjsonl.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	old := memory.Memory{ID: "m1", Tenant: "acme", Content: "editor: Vim", Vector: []float32{1, 2}}
	merged := memory.Memory{ID: "m3", Tenant: "acme", Content: "editor: Helix", DerivedFrom: []string{"m1", "m2"}}
	rec := consolidate.EpochRecord{Tenant: "acme", Epoch: "manual:1", Seq: 7, At: at, Ops: []consolidate.Op{
		{Phase: "gate", Op: "promote", MemoryIDs: []string{"m1"}, Before: []memory.Memory{old}, After: []memory.Memory{old}, Applied: true, Decider: consolidate.DecidedByRule},
		{Phase: "merge", Op: "merge", MemoryIDs: []string{"m1", "m2"}, Before: []memory.Memory{old}, After: []memory.Memory{merged}, Applied: true,
			Decider: consolidate.DecidedByLLM, Model: strings.Repeat("m", 100), Reason: strings.Repeat("long ", auditlog.MaxReasonChars)},
		{Phase: "audit", Op: "delete", MemoryIDs: []string{"m3"}, Decider: consolidate.DecidedByLLM, Reason: "audit may not delete"},
	}}
	if err := (auditJournal{l}).Record(context.Background(), rec); err != nil {
		t.Fatalf("record: %v", err)
	}
	got, err := l.Read(context.Background(), auditlog.Query{Tenant: "acme"})
	if err != nil || len(got) != 3 {
		t.Fatalf("read %d entries (%v), want 3", len(got), err)
	}
	// One clock reading for the epoch: the last operation reads first.
	for i, want := range []string{"audit/delete", "merge/merge", "gate/promote"} {
		e := got[i]
		if e.Phase+"/"+e.Op != want || e.Epoch != "manual:1" || e.Seq != 7 || !e.Time.Equal(at) {
			t.Fatalf("entry %d = %s/%s of %s #%d at %s, want %s of manual:1 #7 at %s", i, e.Phase, e.Op, e.Epoch, e.Seq, e.Time, want, at)
		}
	}
	if got[0].Applied || got[0].Before != nil || got[0].After != nil {
		t.Fatalf("the refused delete = %+v", got[0])
	}
	if len(got[1].Reason) > auditlog.MaxReasonChars || !strings.HasSuffix(got[1].Reason, "…") {
		t.Fatalf("a long reason was stored with %d bytes", len(got[1].Reason))
	}
	after, err := auditlog.Memories(got[1].After)
	if err != nil || len(after) != 1 || after[0].ID != "m3" || len(after[0].DerivedFrom) != 2 {
		t.Fatalf("after of the merge = %s (%v)", got[1].After, err)
	}
	if before, _ := auditlog.Memories(got[2].Before); len(before) != 1 || before[0].Vector != nil {
		t.Fatalf("before of the promotion = %s", got[2].Before)
	}
}
