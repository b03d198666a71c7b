package auditlog_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestSnapshot(t *testing.T) {
	if got := auditlog.Snapshot(); got != nil {
		t.Fatalf("Snapshot() = %s, want nil", got)
	}
	m := memory.Memory{ID: "m1", Content: "x", Vector: []float32{1, 2}}
	raw := auditlog.Snapshot(m)
	if strings.Contains(string(raw), "vector") {
		t.Fatalf("snapshot keeps the vector: %s", raw)
	}
	ms, err := auditlog.Memories(raw)
	if err != nil || len(ms) != 1 || ms[0].ID != "m1" || ms[0].Content != "x" {
		t.Fatalf("Memories(%s) = %+v, %v", raw, ms, err)
	}
	if ms, err := auditlog.Memories(nil); err != nil || ms != nil {
		t.Fatalf("Memories(nil) = %+v, %v", ms, err)
	}
	if _, err := auditlog.Memories([]byte(`{"id":1}`)); err == nil {
		t.Fatal("Memories of an object succeeded")
	}
}

func TestQueryNormalized(t *testing.T) {
	q, err := auditlog.Query{Tenant: "acme"}.Normalized()
	if err != nil || q.Limit != auditlog.DefaultLimit {
		t.Fatalf("Normalized() = %+v, %v; want the default limit", q, err)
	}
	if q, err := (auditlog.Query{Tenant: "acme", Limit: auditlog.MaxLimit}).Normalized(); err != nil || q.Limit != auditlog.MaxLimit {
		t.Fatalf("the maximum limit: %+v, %v", q, err)
	}
}

func TestClipReason(t *testing.T) {
	if got := auditlog.ClipReason("short"); got != "short" {
		t.Fatalf("ClipReason(short) = %q", got)
	}
	long := strings.Repeat("é", auditlog.MaxReasonChars) // two bytes each
	got := auditlog.ClipReason(long)
	if len(got) > auditlog.MaxReasonChars || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Fatalf("ClipReason of %d bytes gave %d bytes, valid %v", len(long), len(got), utf8.ValidString(got))
	}
	e := auditlog.Entry{Tenant: "acme", Time: time.Now(), Phase: "audit", Op: "merge", Decider: auditlog.DeciderLLM, Reason: got}
	if err := e.Validate(); err != nil {
		t.Fatalf("a clipped reason is refused: %v", err)
	}
	e.Reason = long
	if err := e.Validate(); err == nil {
		t.Fatal("an overlong reason is accepted")
	}
}
