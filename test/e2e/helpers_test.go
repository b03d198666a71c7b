// Package e2e runs the whole pipeline: in one process, and as separate
// processes against real nats-server, redis-server and clickhouse-server.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/recall"
)

var httpClient = &http.Client{Timeout: 30 * time.Second}

func postJSON(t testing.TB, url string, body any, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decode %s answer %s: %v", url, data, err)
		}
	}
	if resp.StatusCode >= 300 {
		t.Logf("POST %s: %s %s", url, resp.Status, data)
	}
	return resp.StatusCode
}

func getJSON(t testing.TB, url string, out any) int {
	t.Helper()
	resp, err := httpClient.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("decode %s answer %s: %v", url, data, err)
		}
	}
	return resp.StatusCode
}

// eventually polls cond until it returns nil or the deadline passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s: %v", what, timeout, err)
}

const preferenceTurn = "I prefer tabs over spaces, and always run make test before committing"

func turnEvent(tenant, id, content string) map[string]any {
	return map[string]any{"id": id, "type": "turn", "tenant": tenant, "session_id": "s1", "subject": "alice", "role": "user", "content": content}
}

// recallIndent asks the indentation question and checks the preference is
// the answer, in the ranked list and in the Recalled Context block.
func recallIndent(t testing.TB, queryURL, tenant string) func() error {
	return func() error {
		var resp recall.Response
		code := postJSON(t, queryURL+"/v1/recall", map[string]any{"tenant": tenant, "query": "how should I indent code?"}, &resp)
		if code != http.StatusOK {
			return fmt.Errorf("recall answered %d", code)
		}
		if len(resp.Memories) == 0 {
			return fmt.Errorf("no memories recalled yet")
		}
		top := resp.Memories[0].Memory
		if !strings.Contains(strings.ToLower(top.Content), "tabs") {
			return fmt.Errorf("top memory is %q, not the tabs preference", top.Content)
		}
		if top.Domain != "user-preferences" {
			return fmt.Errorf("tabs preference in domain %q", top.Domain)
		}
		if !strings.Contains(resp.Context, "## Recalled Context") || !strings.Contains(resp.Context, "### User Preferences") {
			return fmt.Errorf("context block lacks the headings:\n%s", resp.Context)
		}
		return nil
	}
}
