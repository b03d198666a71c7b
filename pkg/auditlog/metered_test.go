package auditlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auditlog/jsonl"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestMetered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "audit")
	backend, err := jsonl.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	var logs bytes.Buffer
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	m := auditlog.NewMetered(backend, reg, slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return now })
	ctx := context.Background()

	// Entries without a time get the clock's; the caller's slice is left alone.
	batch := []auditlog.Entry{
		{Tenant: "acme", Epoch: "e1", Phase: "gate", Op: "promote", Applied: true, Decider: auditlog.DeciderRule},
		{Tenant: "acme", Epoch: "e1", Phase: "gate", Op: "reject", Decider: auditlog.DeciderLLM, Time: now.Add(-time.Minute)},
		{Tenant: "acme", Epoch: "e1", Phase: "audit", Op: "merge", Decider: auditlog.DeciderLLM},
	}
	if err := m.Write(ctx, batch); err != nil {
		t.Fatalf("write: %v", err)
	}
	if !batch[0].Time.IsZero() {
		t.Fatal("Write changed the caller's entries")
	}
	got, err := m.Read(ctx, auditlog.Query{Tenant: "acme"})
	if err != nil || len(got) != 3 || !got[0].Time.Equal(now) || !got[2].Time.Equal(now.Add(-time.Minute)) {
		t.Fatalf("read %+v (%v), want the stamped entries", got, err)
	}
	wantMetrics(t, reg, map[string]float64{
		`recollect_audit_entries_total{applied="true",decider="rule",phase="gate"}`:  1,
		`recollect_audit_entries_total{applied="false",decider="llm",phase="gate"}`:  1,
		`recollect_audit_entries_total{applied="false",decider="llm",phase="audit"}`: 1,
		`recollect_audit_write_failures_total{}`:                                     0,
		`recollect_audit_entries_failed_total{}`:                                     0,
	})

	// A failed write is returned, counted and logged with its tenant and epoch.
	bad := []auditlog.Entry{{Tenant: "acme", Epoch: "e2", Phase: "gate", Op: "promote", Decider: "oracle"}}
	if err := m.Write(ctx, bad); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("write of a bad entry = %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil { // the directory is now a file
		t.Fatal(err)
	}
	if err := m.Write(ctx, batch[:2]); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
	wantMetrics(t, reg, map[string]float64{
		`recollect_audit_entries_total{applied="true",decider="rule",phase="gate"}`: 1,
		`recollect_audit_write_failures_total{}`:                                    2,
		`recollect_audit_entries_failed_total{}`:                                    3,
	})
	if out := logs.String(); strings.Count(out, "audit write failed") != 2 || !strings.Contains(out, "epoch=e2") || !strings.Contains(out, "tenant=acme") {
		t.Fatalf("failures logged as:\n%s", out)
	}
}

// wantMetrics compares the registry's values of the named series.
func wantMetrics(t *testing.T, reg *prometheus.Registry, want map[string]float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			got[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (have %v)", k, got[k], v, got)
		}
	}
}
