package auditlog_test

import (
	"strings"
	"testing"

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
