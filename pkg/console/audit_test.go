package console

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestAuditRows(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	vim := memory.Memory{ID: "m1", Tenant: "acme", Content: "editor: Vim", Layer: memory.LayerBuffer}
	closed := vim
	closed.InvalidAt, closed.SupersededBy = &at, "m2"
	merged := memory.Memory{ID: "m3", Tenant: "acme", Content: "editor: Helix", DerivedFrom: []string{"m1", "m9"}}
	rows := auditRows([]api.AuditEntry{
		{Phase: "supersede", Op: "supersede", Before: auditlog.Snapshot(vim), After: auditlog.Snapshot(closed), Applied: true},
		{Phase: "merge", Op: "merge", Before: auditlog.Snapshot(vim), After: auditlog.Snapshot(merged), Applied: true},
		{Phase: "purge", Op: "delete", Before: auditlog.Snapshot(vim), Applied: true},
	})
	var fields []string
	for _, c := range rows[0].Changes {
		fields = append(fields, c.Field+":"+c.Before+">"+c.After)
	}
	if want := []string{"invalid_at:>2025-06-01T12:00:00Z", "superseded_by:>m2"}; !slices.Equal(fields, want) {
		t.Errorf("supersede changes %v, want %v", fields, want)
	}
	if len(rows[1].Created) != 1 || rows[1].Created[0].ID != "m3" || len(rows[1].Removed) != 1 || rows[1].Removed[0].ID != "m1" {
		t.Errorf("merge: created %v removed %v", rows[1].Created, rows[1].Removed)
	}
	if len(rows[2].Removed) != 1 || len(rows[2].Created) != 0 {
		t.Errorf("delete: created %v removed %v", rows[2].Created, rows[2].Removed)
	}
	if got := derivedInto(rows, "m1"); !slices.Equal(got, []string{"m3"}) {
		t.Errorf("derived into %v, want [m3]", got)
	}
}

func TestChartsEscapeLabels(t *testing.T) {
	hostile := `<script>alert(1)</script>`
	out := string(barChart(hostile, []string{hostile}, []series{{Name: hostile, Values: []float64{3}}}, "calls"))
	out += string(timeline([]span{{Label: hostile, RecordFrom: time.Unix(0, 0)}}, time.Unix(3600, 0)))
	out += string(layerBar(map[string]int{"buffer": 2, "core": 1}))
	if strings.Contains(out, "<script>") || !strings.Contains(out, "&lt;script&gt;") {
		t.Fatalf("a label is drawn as markup:\n%s", out)
	}
}
