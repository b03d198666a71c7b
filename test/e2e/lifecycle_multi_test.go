package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

var (
	scriptHandleRe = regexp.MustCompile(`\[(m\d+)\]`)
	topicIDRe      = regexp.MustCompile(`(?m)^\[([^\]]+)\] \d+ memories`)
)

// lifecycleScript answers the consolidator's calls: triage promotes,
// the gate approves constraints, merge and reconcile combine.
func lifecycleScript(r llmtest.Request) llmtest.Reply {
	sys, user := r.System(), r.LastUser()
	decide := func(field, value string) llmtest.Reply {
		var ds []map[string]string
		for _, m := range scriptHandleRe.FindAllStringSubmatch(user, -1) {
			ds = append(ds, map[string]string{"id": m[1], field: value})
		}
		return llmtest.JSON(map[string]any{"decisions": ds})
	}
	switch {
	case strings.Contains(sys, "triage"):
		return decide("action", "promote")
	case strings.Contains(sys, "CORE"):
		if strings.Contains(user, "force-push") {
			return decide("decision", "approve")
		}
		return decide("decision", "reject")
	case strings.Contains(sys, "near-duplicate"):
		return llmtest.JSON(map[string]any{"merge": true, "merged": "The CI pipeline runs on GitHub Actions with Go 1.26; it caches Go modules between runs"})
	case strings.Contains(sys, "OLDER"):
		if strings.Contains(user, "Helix") {
			return llmtest.JSON(map[string]any{"decision": "update", "merged_content": "The user's editor is Helix (switched from Vim)"})
		}
		return llmtest.JSON(map[string]any{"decision": "keep_both"})
	case strings.Contains(sys, "audit"):
		return llmtest.JSON(map[string]any{"ops": []any{}})
	case strings.Contains(sys, "You name topics"):
		names := map[string]string{}
		for _, m := range topicIDRe.FindAllStringSubmatch(user, -1) {
			names[m[1]] = "Scripted topic " + clipID(m[1]) // unique per topic
		}
		return llmtest.JSON(map[string]any{"names": names})
	}
	return llmtest.JSON(map[string]any{"names": map[string]string{}, "status": "ok"})
}

func clipID(id string) string { return id[:min(len(id), 12)] }

// lifecycleAcrossProcesses runs epochs in the consolidator process against
// the scripted LLM: the gate takes a constraint to core, buffer dedup and
// the same-key rule (reviewed by the model) supersede, and a consolidator
// killed with SIGKILL in the
// middle of an epoch leaves a store the next epoch completes once.
func lifecycleAcrossProcesses(t *testing.T, c *cluster) {
	ingest, q := c.procs["ingest"].url(), c.procs["query"].url()
	const tenant = "life"
	now := time.Now()
	ev := func(id, key, typ, content string, ts time.Time) map[string]any {
		return map[string]any{"id": id, "type": "memory", "tenant": tenant, "subject": "alice", "ts": ts.UTC().Format(time.RFC3339),
			"memory": map[string]any{"content": content, "type": typ, "key": key}}
	}
	evs := []any{
		ev("vim", "editor", "preference", "My editor is Vim", now.Add(-30*24*time.Hour)),
		ev("helix", "editor", "preference", "I switched to Helix", now.Add(-9*24*time.Hour)),
		ev("ci-1", "", "fact", "The CI pipeline runs on GitHub Actions with Go 1.26", now.Add(-2*time.Hour)),
		ev("ci-2", "", "fact", "The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules", now.Add(-time.Hour)),
		ev("push-1", "", "policy", "Never force-push to the main branch", now.Add(-3*time.Hour)),
		ev("push-2", "", "policy", "Never force-push to the main branch", now.Add(-2*time.Hour)),
		ev("push-3", "", "policy", "Never force-push to the main branch", now.Add(-time.Hour)),
	}
	if code := postJSON(t, ingest+"/v1/events", map[string]any{"events": evs}, nil); code != http.StatusAccepted {
		t.Fatalf("ingest answered %d", code)
	}
	get := func(id string) memory.Memory {
		var m memory.Memory
		getJSON(t, q+"/v1/memories/"+id+"?tenant="+tenant, &m)
		return m
	}
	id := func(content string) string { return memory.MemoryID(tenant, "default", "alice", content) }
	push := id("Never force-push to the main branch")
	eventually(t, 90*time.Second, "five memories stored, the policy restated twice", func() error {
		if n := len(listMemories(t, q, tenant, "")); n != 5 {
			return fmt.Errorf("%d memories", n)
		}
		if m := get(push); m.RepetitionCount < 3 {
			return fmt.Errorf("policy repetition %d", m.RepetitionCount)
		}
		return nil
	})

	// kill -9 in the middle of an epoch: the LLM holds the epoch in its
	// first call, the consolidator dies, and the next request resumes it.
	release := c.llm.Hold()
	postJSON(t, q+"/v1/consolidate", map[string]any{"tenant": tenant}, nil)
	eventually(t, 30*time.Second, "an epoch waiting on the LLM", func() error {
		if c.llm.InFlight() == 0 {
			return fmt.Errorf("no LLM call yet")
		}
		return nil
	})
	c.procs["consolidator"].stop(syscall.SIGKILL)
	release()
	c.procs["consolidator"].start(t)
	vim, helix := id("My editor is Vim"), id("I switched to Helix")
	ci1, ci2 := id("The CI pipeline runs on GitHub Actions with Go 1.26"), id("The CI pipeline runs on GitHub Actions with Go 1.26 and caches modules")
	consolidateUntil(t, q, tenant, "gate, dedup and the same-key update applied", func() error {
		if m := get(push); m.Layer != memory.LayerCore {
			return fmt.Errorf("policy in %s", m.Layer)
		}
		for _, x := range []string{vim, ci1} {
			if m := get(x); !m.Superseded() {
				return fmt.Errorf("%q not superseded", m.Content)
			}
		}
		return nil
	})
	// Both CI statements reach the buffer together and the shorter says
	// nothing the longer does not: buffer dedup folds it as a
	// restatement, without a merge call.
	if a, b := get(ci1), get(ci2); a.SupersededBy != ci2 || b.Superseded() || b.RepetitionCount < 2 {
		t.Fatalf("the shorter CI statement superseded by %q (want %q), the longer superseded %v, restated %d", a.SupersededBy, ci2, b.Superseded(), b.RepetitionCount)
	}
	// The same key: the rule supersedes Vim by Helix as it was said; the
	// model reviews it and may only explain or refuse (issue 19).
	if m := get(vim); m.SupersededBy != helix {
		t.Fatalf("Vim superseded by %q, want the Helix statement %q", m.SupersededBy, helix)
	}
	if m := get(get(vim).SupersededBy); !strings.Contains(m.Content, "Helix") || m.Superseded() {
		t.Fatalf("the editor's current version: %q superseded %v", m.Content, m.Superseded())
	}
	// Decay applied once per epoch despite the crash: the policy's
	// importance (1.0) is 1 − 0.003 × epochs that changed it.
	m := get(push)
	if want := 1 - 0.003*float64(m.Epoch); m.Epoch == 0 || m.Importance < want-1e-9 {
		t.Fatalf("policy importance %v after epoch %d, want ≥ %v (decayed twice in one epoch?)", m.Importance, m.Epoch, want)
	}
	// The topiary process named the tenant's topics through the LLM.
	eventually(t, 60*time.Second, "topics named by the LLM", func() error {
		var tr query.TopicsResponse
		if code := postJSON(t, q+"/v1/topics", map[string]any{"tenant": tenant}, &tr); code != http.StatusOK {
			return fmt.Errorf("topics answered %d", code)
		}
		if len(tr.Topics) == 0 {
			return fmt.Errorf("no topic tree yet")
		}
		for _, n := range tr.Topics {
			if !strings.HasPrefix(n.Name, "Scripted topic") {
				return fmt.Errorf("topic %s named %q", n.ID, n.Name)
			}
		}
		return nil
	})
	var audit struct {
		Entries []map[string]any `json:"entries"`
	}
	if code := getJSON(t, q+"/v1/audit?tenant="+tenant+"&limit=1000", &audit); code != http.StatusOK || len(audit.Entries) == 0 {
		t.Fatalf("audit answered %d with %d entries", code, len(audit.Entries))
	}
}
