package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/promptctx"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// conversationTurns is a conversation as an agent streams it: mostly
// small talk, one short answer that only makes sense after its question.
var conversationTurns = []struct{ role, text string }{
	{"user", "Morning! The coffee machine on our floor is broken again."},
	{"assistant", "That is annoying. Did you report it to facilities?"},
	{"user", "Yes, they said Thursday."},
	{"assistant", "Good. Anything else on your plate today?"},
	{"user", "Mostly reviewing the quarterly roadmap slides."},
	{"assistant", "Want me to summarise the open questions from last week?"},
	{"user", "Later, thanks."},
	{"assistant", "Where were you yesterday? You missed the standup."},
	{"user", "Yesterday I was in Lisbon for the conference."},
	{"assistant", "How was it?"},
	{"user", "Great talks on observability, terrible wifi."},
	{"assistant", "Classic conference wifi."},
}

// streamConversation publishes conversationTurns as turn events (one per
// message, in one batch) and a session end carrying the same messages
// with the turns' ids, the way an agent does; then checks every message
// is one transcript memory, found by recall with its context, quoted by
// /v1/context, and left alone by an epoch.
func streamConversation(t *testing.T, ingestURL, queryURL, tenant string) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var evs []any
	var msgs []map[string]any
	for i, turn := range conversationTurns {
		id := fmt.Sprintf("conv-%d", i)
		ts := t0.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		ev := map[string]any{"id": id, "type": "turn", "tenant": tenant, "session_id": "standup", "subject": "maya",
			"role": turn.role, "content": turn.text, "ts": ts}
		msg := map[string]any{"id": id, "role": turn.role, "content": turn.text, "ts": ts}
		if turn.role == "user" {
			ev["name"], msg["name"] = "Maya", "Maya"
		}
		evs, msgs = append(evs, ev), append(msgs, msg)
	}
	if code := postJSON(t, ingestURL+"/v1/events", map[string]any{"events": evs}, nil); code != http.StatusAccepted {
		t.Fatalf("turns answered %d", code)
	}
	end := map[string]any{"id": "conv-end", "type": "session_end", "tenant": tenant, "session_id": "standup", "subject": "maya",
		"ts": t0.Add(time.Hour).Format(time.RFC3339), "messages": msgs}
	if code := postJSON(t, ingestURL+"/v1/events", end, nil); code != http.StatusAccepted {
		t.Fatalf("session end answered %d", code)
	}
	n := len(conversationTurns)
	transcripts := func() []memory.Memory {
		var out []memory.Memory
		for _, m := range listMemories(t, queryURL, tenant, "&include_archived=true") {
			if m.Transcript() {
				out = append(out, m)
			}
		}
		return out
	}
	eventually(t, 90*time.Second, "every streamed message kept, once, with its session end as a second source", func() error {
		ts := transcripts()
		if len(ts) != n {
			return fmt.Errorf("%d transcript memories, want %d", len(ts), n)
		}
		for _, m := range ts {
			if !slices.Contains(m.SourceIDs, tenant+":conv-end") {
				return fmt.Errorf("%q: sources %v lack the session end", m.Content, m.SourceIDs)
			}
		}
		return nil
	})

	var resp recall.Response
	if code := postJSON(t, queryURL+"/v1/recall", map[string]any{"tenant": tenant, "query": "Where was Maya for the conference?", "k": 10}, &resp); code != http.StatusOK {
		t.Fatalf("recall answered %d", code)
	}
	var found *memory.Memory
	for i := range resp.Memories {
		if m := &resp.Memories[i].Memory; strings.Contains(m.Content, "Lisbon") && m.Transcript() {
			found = m
			break
		}
	}
	if found == nil {
		t.Fatalf("the Lisbon turn was not recalled: %+v", resp.Memories)
	}
	if found.Content != "Maya: Yesterday I was in Lisbon for the conference." || found.Session != "standup" ||
		!strings.Contains(found.Evidence, "Where were you yesterday?") || !slices.Contains(found.SourceIDs, tenant+":conv-8") ||
		!found.ValidFrom.Equal(t0.Add(8*time.Minute)) {
		t.Fatalf("the Lisbon turn lacks its provenance or context: %+v", found)
	}
	if strings.Contains(resp.Context, "Lisbon") {
		t.Fatalf("a transcript memory was injected as a fact:\n%s", resp.Context)
	}

	var ctxResp promptctx.ContextResponse
	if code := postJSON(t, queryURL+"/v1/context", map[string]any{"tenant": tenant, "query": "Where was Maya for the conference?"}, &ctxResp); code != http.StatusOK {
		t.Fatalf("context answered %d", code)
	}
	if !strings.Contains(ctxResp.Context, "## From Earlier Conversations") || !strings.Contains(ctxResp.Context, "(2026-03-02) Maya: Yesterday I was in Lisbon") {
		t.Fatalf("context does not quote the conversation:\n%s", ctxResp.Context)
	}

	// Epochs leave what was said alone (no cap, decay or promotion).
	for range 2 {
		if code := postJSON(t, queryURL+"/v1/consolidate", map[string]any{"tenant": tenant}, nil); code >= 300 {
			t.Fatalf("consolidate answered %d", code)
		}
	}
	var stats query.Stats
	eventually(t, 30*time.Second, "stats count the transcripts", func() error {
		getJSON(t, queryURL+"/v1/stats?tenant="+tenant, &stats)
		if stats.Transcripts.Memories != n || stats.Transcripts.Archived != 0 || stats.Transcripts.Sessions != 1 {
			return fmt.Errorf("transcript stats %+v", stats.Transcripts)
		}
		return nil
	})
	for _, m := range transcripts() {
		if m.Archived || m.Superseded() || m.Layer != memory.LayerBuffer {
			t.Fatalf("an epoch changed a transcript memory: %+v", m)
		}
	}
}

func TestConversationSingleProcess(t *testing.T) {
	a := startSingle(t, t.TempDir())
	t.Cleanup(func() { _ = a.Stop(context.Background()) })
	base := a.Web().URL()
	streamConversation(t, base, base, "talk")
}
