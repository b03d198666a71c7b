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
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// Replaying a conversation with its original timestamps gives the validity
// living through it would: statements weeks apart, a same-key update among
// them, all read by epochs today. The older version is valid until the
// newer statement's time (not the epoch's), recall and context as_of a day
// before the update answer the older value, after it the newer; known_at
// answers what Recollect knew; history shows both timelines.
func TestReplayedHistoryKeepsValidTime(t *testing.T) {
	a := startConfigured(t, t.TempDir(), func(*app.Config) {})
	base := a.Web().URL()
	const tenant = "replay"
	start := time.Now().UTC().Add(-70 * 24 * time.Hour).Truncate(time.Second)
	switched := start.Add(35 * 24 * time.Hour)
	events := []map[string]any{
		keyedMemory(tenant, "db-1", "staging-db", "The staging database is MySQL 8", start),
		keyedMemory(tenant, "ci-1", "ci", "CI runs on GitHub Actions", start.Add(7*24*time.Hour)),
		keyedMemory(tenant, "db-2", "staging-db", "The staging database is Postgres 15", switched),
	}
	for _, ev := range events {
		if code := postJSON(t, base+"/v1/events", ev, nil); code != http.StatusAccepted {
			t.Fatalf("ingest answered %d", code)
		}
	}
	eventually(t, 30*time.Second, "three stored", func() error {
		if n := len(listMemories(t, base, tenant, "")); n != 3 {
			return fmt.Errorf("%d memories", n)
		}
		return nil
	})
	mysql := memory.MemoryID(tenant, "default", "alice", "The staging database is MySQL 8")
	postgres := memory.MemoryID(tenant, "default", "alice", "The staging database is Postgres 15")
	epochAt := time.Now().UTC()
	var old memory.Memory
	consolidateUntil(t, base, tenant, "mysql superseded", func() error {
		if code := getJSON(t, base+"/v1/memories/"+mysql+"?tenant="+tenant, &old); code != http.StatusOK {
			return fmt.Errorf("get answered %d", code)
		}
		if old.SupersededBy != postgres {
			return fmt.Errorf("mysql superseded by %q", old.SupersededBy)
		}
		return nil
	})
	if old.ValidUntil == nil || !old.ValidUntil.Equal(switched) {
		t.Fatalf("valid_until %v, want the newer statement's time %v", old.ValidUntil, switched)
	}
	if old.InvalidAt == nil || old.InvalidAt.Before(epochAt.Add(-time.Minute)) {
		t.Fatalf("invalid_at %v, want record time (the replay's epoch, ~%v)", old.InvalidAt, epochAt)
	}
	// More epochs change neither clock.
	for range 2 {
		postJSON(t, base+"/v1/consolidate", map[string]any{"tenant": tenant}, nil)
	}
	ask := func(extra map[string]any) recall.Response {
		t.Helper()
		req := map[string]any{"tenant": tenant, "query": "which database does staging use?"}
		for k, v := range extra {
			req[k] = v
		}
		var rr recall.Response
		if code := postJSON(t, base+"/v1/recall", req, &rr); code != http.StatusOK {
			t.Fatalf("recall %v answered %d", extra, code)
		}
		return rr
	}
	ids := func(rr recall.Response) map[string]bool {
		out := map[string]bool{}
		for _, r := range rr.Memories {
			out[r.Memory.ID] = true
		}
		return out
	}
	rfc := func(t time.Time) string { return t.Format(time.RFC3339) }
	dayBefore, dayAfter := switched.Add(-24*time.Hour), switched.Add(24*time.Hour)
	if got := ask(map[string]any{"as_of": rfc(dayBefore)}); !ids(got)[mysql] || ids(got)[postgres] ||
		!strings.Contains(got.Context, "MySQL 8") || strings.Contains(got.Context, "Postgres") {
		t.Fatalf("as_of a day before the update: %v\n%s", ids(got), got.Context)
	}
	if got := ask(map[string]any{"as_of": rfc(dayBefore)}); got.Time == nil || !got.Time.ValidAt.Equal(dayBefore) || !got.Time.KnownAt.IsZero() {
		t.Fatalf("as_of explained as %+v", got.Time)
	}
	if got := ask(map[string]any{"as_of": rfc(dayAfter)}); ids(got)[mysql] || !ids(got)[postgres] {
		t.Fatalf("as_of a day after the update: %v", ids(got))
	}
	if got := ask(map[string]any{"as_of": rfc(start.Add(-time.Hour))}); ids(got)[mysql] || ids(got)[postgres] {
		t.Fatalf("as_of before anything was said: %v", ids(got))
	}
	if got := ask(nil); ids(got)[mysql] || !ids(got)[postgres] {
		t.Fatalf("now: %v", ids(got))
	}
	// Record time: on the day of the update Recollect had read it (the
	// replay stamps created_at with the event's ts) but not yet superseded
	// MySQL: it knew both; before it, MySQL only.
	if got := ask(map[string]any{"known_at": rfc(dayBefore)}); !ids(got)[mysql] || ids(got)[postgres] {
		t.Fatalf("known_at a day before the update: %v", ids(got))
	}
	if got := ask(map[string]any{"known_at": rfc(dayAfter)}); !ids(got)[mysql] || !ids(got)[postgres] {
		t.Fatalf("known_at before the epoch: %v", ids(got))
	}
	listed := func(extra string) map[string]bool {
		out := map[string]bool{}
		for _, m := range listMemories(t, base, tenant, extra) {
			out[m.ID] = true
		}
		return out
	}
	if got := listed("&as_of=" + rfc(dayBefore)); len(got) != 2 || !got[mysql] || got[postgres] {
		t.Fatalf("listed as_of a day before the update: %v", got)
	}
	if got := listed("&known_at=" + rfc(dayAfter)); len(got) != 3 {
		t.Fatalf("listed known_at before the epoch: %v", got)
	}
	if code := getJSON(t, base+"/v1/memories?tenant="+tenant+"&as_of=yesterday", nil); code != http.StatusBadRequest {
		t.Fatalf("a list with a malformed as_of answered %d", code)
	}
	var cx promptctx.ContextResponse
	if code := postJSON(t, base+"/v1/context", map[string]any{"tenant": tenant, "query": "staging database", "as_of": rfc(dayBefore)}, &cx); code != http.StatusOK {
		t.Fatalf("context answered %d", code)
	}
	if !strings.Contains(cx.Context, "MySQL 8") || strings.Contains(cx.Context, "Postgres") {
		t.Fatalf("context as_of a day before the update:\n%s", cx.Context)
	}
	if code := postJSON(t, base+"/v1/context", map[string]any{"tenant": tenant, "query": "staging database", "as_of": "yesterday"}, nil); code != http.StatusBadRequest {
		t.Fatalf("context with a malformed as_of answered %d", code)
	}
	var hist query.History
	if code := getJSON(t, base+"/v1/memories/"+mysql+"/history?tenant="+tenant, &hist); code != http.StatusOK {
		t.Fatalf("history answered %d", code)
	}
	if len(hist.Chain) != 2 || hist.Chain[0].ID != mysql || hist.Chain[0].ValidUntil == nil || !hist.Chain[0].ValidUntil.Equal(switched) ||
		!hist.Chain[0].ValidFrom.Equal(start) || hist.Chain[0].InvalidAt == nil || hist.Chain[1].ValidUntil != nil || !hist.Chain[1].ValidFrom.Equal(switched) {
		t.Fatalf("history chain %+v", hist.Chain)
	}
}
