package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/promptctx"
)

// A correction said in conversation supersedes the fact it corrects, one
// process, no LLM (issue 19 item 3): "The staging DB is MySQL 8" stored
// earlier, a later turn "Actually the staging DB is Postgres 15, not
// MySQL" → after the next epoch the MySQL memory is superseded with its
// history, /v1/context no longer carries it, and the correction is current.
func TestCorrectionWithoutLLM(t *testing.T) {
	a := startConfigured(t, t.TempDir(), func(c *app.Config) {})
	base := a.Web().URL()
	const tenant = "fix"
	then := time.Now().Add(-10 * 24 * time.Hour)
	postJSON(t, base+"/v1/events", map[string]any{"id": "mysql", "type": "memory", "tenant": tenant, "subject": "alice",
		"ts": then.UTC().Format(time.RFC3339), "memory": map[string]any{"content": "The staging DB is MySQL 8", "type": "fact"}}, nil)
	mysqlID := memory.MemoryID(tenant, "default", "alice", "The staging DB is MySQL 8")
	eventually(t, 30*time.Second, "MySQL stored", func() error {
		var m memory.Memory
		if code := getJSON(t, base+"/v1/memories/"+mysqlID+"?tenant="+tenant, &m); code != http.StatusOK {
			return fmt.Errorf("get answered %d", code)
		}
		return nil
	})
	postJSON(t, base+"/v1/events", turnEvent(tenant, "fix-1", "Actually the staging DB is Postgres 15, not MySQL."), nil)
	var fix memory.Memory
	eventually(t, 30*time.Second, "correction captured", func() error {
		for _, m := range listMemories(t, base, tenant, "") {
			if strings.Contains(m.Content, "Postgres 15") && m.Key != "" && !strings.HasPrefix(m.Key, "transcript") {
				fix = m
				return nil
			}
		}
		return fmt.Errorf("no correction memory yet")
	})
	if !strings.HasPrefix(fix.Content, "Actually") {
		t.Fatalf("the correction lost its marker: %q", fix.Content)
	}
	consolidateUntil(t, base, tenant, "MySQL superseded", func() error {
		var m memory.Memory
		if code := getJSON(t, base+"/v1/memories/"+mysqlID+"?tenant="+tenant, &m); code != http.StatusOK {
			return fmt.Errorf("get answered %d", code)
		}
		if m.InvalidAt == nil || m.SupersededBy != fix.ID || m.Content != "The staging DB is MySQL 8" {
			return fmt.Errorf("MySQL: invalid_at %v superseded_by %q", m.InvalidAt, m.SupersededBy)
		}
		return nil
	})
	var cur memory.Memory
	if code := getJSON(t, base+"/v1/memories/"+fix.ID+"?tenant="+tenant, &cur); code != http.StatusOK || cur.Superseded() || cur.Layer == memory.LayerBuffer {
		t.Fatalf("the correction after the epoch: %d superseded %v layer %s", code, cur.Superseded(), cur.Layer)
	}
	var cx promptctx.ContextResponse
	if code := postJSON(t, base+"/v1/context", map[string]any{"tenant": tenant, "subject": "alice", "query": "what database does staging use?"}, &cx); code != http.StatusOK {
		t.Fatalf("context answered %d", code)
	}
	if !strings.Contains(cx.Context, "Postgres 15") || strings.Contains(cx.Context, "MySQL 8") {
		t.Fatalf("context block:\n%s", cx.Context)
	}
}
