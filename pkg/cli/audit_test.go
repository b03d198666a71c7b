package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// testAuditCmd writes entries into the app's audit log as an epoch would
// and prints them with `recollect audit`. The tenant is its own: epochs of
// the other subtests may write to acme's.
func testAuditCmd(t *testing.T, a *app.App) {
	const tenant = "audit-cli"
	t0 := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	vim := memory.Memory{ID: "m-vim", Tenant: tenant, Content: "the user's editor is Vim", Layer: memory.LayerWorking, Importance: 0.5}
	core := vim
	core.Layer, core.Importance = memory.LayerCore, 0.7
	helix := memory.Memory{ID: "m-helix", Tenant: tenant, Content: "the user switched to Helix", Layer: memory.LayerWorking}
	superseded := core
	superseded.InvalidAt, superseded.SupersededBy = &t0, "m-helix"
	entries := []auditlog.Entry{
		{Time: t0, Tenant: tenant, Epoch: "e1", Seq: 1, Phase: "gate", Op: "promote", MemoryIDs: []string{"m-vim"},
			Before: auditlog.Snapshot(vim), After: auditlog.Snapshot(core), Applied: true, Decider: auditlog.DeciderRule, Reason: "reinforced 3 times"},
		{Time: t0.Add(time.Hour), Tenant: tenant, Epoch: "e2", Seq: 2, Phase: "reconcile", Op: "supersede", MemoryIDs: []string{"m-vim", "m-helix"},
			Before: auditlog.Snapshot(core, helix), After: auditlog.Snapshot(superseded, helix), Applied: true, Decider: auditlog.DeciderLLM, Model: "small",
			Reason: "an update:\nthe user now uses Helix"},
		{Time: t0.Add(time.Hour), Tenant: tenant, Epoch: "e2", Seq: 2, Phase: "audit", Op: "delete", MemoryIDs: []string{"m-helix"},
			Before: auditlog.Snapshot(helix), Decider: auditlog.DeciderLLM, Model: "small", Reason: "sandbox: audit may not delete"},
	}
	if err := a.Audit().Write(context.Background(), entries); err != nil {
		t.Fatalf("write audit entries: %v", err)
	}

	out := mustRun(t, "audit", "--tenant", tenant)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, want := range []string{
		`^TIME\s+SEQ\s+PHASE\s+OP\s+RESULT\s+DECIDER\s+MEMORIES\s+CHANGE\s+REASON$`,
		`^\S+\s+2\s+audit\s+delete\s+refused\s+llm:small\s+m-helix\s+-\s+sandbox: audit may not delete$`,
		`^\S+\s+2\s+reconcile\s+supersede\s+applied\s+llm:small\s+m-vim,m-helix\s+m-vim: superseded by m-helix\s+an update: the user now uses Helix$`,
		`^` + regexp.QuoteMeta(t0.Format(time.RFC3339)) + `\s+1\s+gate\s+promote\s+applied\s+rule\s+m-vim\s+layer working→core, importance 0.50→0.70\s+reinforced 3 times$`,
	} {
		if i >= len(lines) || !regexp.MustCompile(want).MatchString(lines[i]) {
			t.Fatalf("audit printed:\n%s\nline %d does not match %s", out, i, want)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("audit printed %d lines, want 4:\n%s", len(lines), out)
	}

	var resp client.AuditResponse
	out = mustRun(t, "audit", "--tenant", tenant, "--memory", "m-vim", "--phase", "gate", "--json")
	if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Entries) != 1 || resp.Entries[0].Op != "promote" {
		t.Fatalf("audit --memory --phase --json printed %s (%v)", out, err)
	}
	if ms, err := auditlog.Memories(resp.Entries[0].After); err != nil || len(ms) != 1 || ms[0].Layer != memory.LayerCore {
		t.Fatalf("--json after = %s (%v)", resp.Entries[0].After, err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--op", "supersede"}, 1},
		{[]string{"--epoch", "e2"}, 2},
		{[]string{"--limit", "1"}, 1},
		{[]string{"--since", "90m"}, 2},
		{[]string{"--until", t0.Add(time.Second).Format(time.RFC3339)}, 1},
	} {
		resp = client.AuditResponse{}
		out = mustRun(t, append([]string{"audit", "--tenant", tenant, "--json"}, tc.args...)...)
		if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Entries) != tc.want {
			t.Fatalf("audit %v printed %s (%v), want %d entries", tc.args, out, err, tc.want)
		}
	}

	if out := mustRun(t, "audit", "--tenant", "audit-cli-empty"); out != "No audit entries for tenant audit-cli-empty.\n" {
		t.Fatalf("an empty audit printed %q", out)
	}
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--limit", "10001"}, "limit must be an integer between 1 and 10000"},
		{[]string{"--since", "yesterday"}, "--since \"yesterday\": want an RFC 3339 time"},
	} {
		if _, err := run(t, append([]string{"audit", "--tenant", tenant}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Fatalf("audit %v: %v, want an error mentioning %q", tc.args, err, tc.mention)
		}
	}
}

func TestChanges(t *testing.T) {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	m := memory.Memory{ID: "a", Layer: memory.LayerCore, Importance: 0.5, Tags: []string{"x"}}
	archived := m
	archived.Archived = true
	merged := m
	merged.Content, merged.Tags = "a and b", []string{"x", "y"}
	b := memory.Memory{ID: "b"}
	gone := b
	gone.InvalidAt, gone.SupersededBy = &now, "a"
	demoted := m
	demoted.Layer = memory.LayerWorking
	replaced := b
	replaced.Supersede("a", now.Add(-48*time.Hour), now)
	migrated := gone
	migrated.Supersede("a", now.Add(-time.Hour), now)
	for _, tc := range []struct {
		name          string
		before, after json.RawMessage
		want          string
	}{
		{"nothing after", auditlog.Snapshot(m), nil, "-"},
		{"unchanged", auditlog.Snapshot(m), auditlog.Snapshot(m), "-"},
		{"created", nil, auditlog.Snapshot(b), "new"},
		{"archived", auditlog.Snapshot(m), auditlog.Snapshot(archived), "archived"},
		{"demoted", auditlog.Snapshot(m), auditlog.Snapshot(demoted), "layer core→working"},
		{"merged", auditlog.Snapshot(m, b), auditlog.Snapshot(merged, gone), "a: content, tags; b: superseded by a"},
		{"superseded with valid time", auditlog.Snapshot(b), auditlog.Snapshot(replaced), "superseded by a, valid until 2025-05-30T00:00:00Z"},
		{"valid time migrated", auditlog.Snapshot(gone), auditlog.Snapshot(migrated), "valid until 2025-05-31T23:00:00Z"},
		{"unreadable", json.RawMessage(`{"x":1}`), auditlog.Snapshot(m), "(before unreadable)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := changes(tc.before, tc.after); got != tc.want {
				t.Fatalf("changes = %q, want %q", got, tc.want)
			}
		})
	}
}
