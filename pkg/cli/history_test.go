package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// history prints both timelines of a replayed update, and recall --as-of
// answers the version true then.
func TestHistoryAndAsOfCommands(t *testing.T) {
	a := clienttest.Start(t)
	t.Setenv("RECOLLECT_URL", a.Web().URL())
	for _, v := range []string{"RECOLLECT_NAMESPACE", "RECOLLECT_API_KEY"} {
		t.Setenv(v, "")
	}
	c := client.New(a.Web().URL(), client.WithTenant("acme"))
	ctx := context.Background()
	said := time.Now().UTC().Add(-50 * 24 * time.Hour).Truncate(time.Second)
	switched := said.Add(21 * 24 * time.Hour)
	ev := func(id, content string, ts time.Time) memory.Event {
		return memory.Event{ID: id, Type: memory.EventMemory, Subject: "alice", TS: ts,
			Memory: &memory.MemoryInput{Key: "editor", Content: content, Type: memory.TypePreference}}
	}
	if _, err := c.Ingest(ctx, ev("vim", "My editor is Vim", said), ev("helix", "I switched to Helix", switched)); err != nil {
		t.Fatal(err)
	}
	vim := memory.MemoryID("acme", "default", "alice", "My editor is Vim")
	clienttest.Eventually(t, time.Minute, "vim superseded", func() error {
		if _, err := c.Consolidate(ctx, query.ConsolidateRequest{}); err != nil {
			return err
		}
		m, err := c.GetMemory(ctx, "", vim)
		if err != nil || m.SupersededBy == "" {
			return fmt.Errorf("vim: superseded by %q (%v)", m.SupersededBy, err)
		}
		return nil
	})
	out := mustRun(t, "history", "--tenant", "acme", vim)
	day := func(t time.Time) string { return regexp.QuoteMeta(t.Format(time.RFC3339)) }
	if !regexp.MustCompile(`(?m)^\s+VALID FROM\s+VALID UNTIL\s+RECORDED\s+INVALIDATED\s+ID\s+CONTENT$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^\*\s+`+day(said)+`\s+`+day(switched)+`\s+`+day(said)+`\s+\S+Z\s+`+vim+`\s+My editor is Vim$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^\s+`+day(switched)+`\s+-\s+`+day(switched)+`\s+-\s+\S+\s+I switched to Helix$`).MatchString(out) {
		t.Fatalf("history printed:\n%s", out)
	}
	before := switched.Add(-time.Hour).Format(time.RFC3339)
	if out := mustRun(t, "recall", "--tenant", "acme", "--as-of", before, "which editor?"); !strings.Contains(out, "My editor is Vim") || strings.Contains(out, "Helix") {
		t.Fatalf("recall --as-of before the switch printed:\n%s", out)
	}
	if out := mustRun(t, "context", "--tenant", "acme", "--as-of", before, "which editor?"); !strings.Contains(out, "My editor is Vim") || strings.Contains(out, "Helix") {
		t.Fatalf("context --as-of before the switch printed:\n%s", out)
	}
	if _, err := run(t, "recall", "--tenant", "acme", "--known-at", "last week", "x"); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Fatalf("a malformed --known-at gave %v", err)
	}
}
