package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// run executes the recollect command line and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err != nil {
		t.Fatalf("recollect %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func TestClientCommands(t *testing.T) {
	a := clienttest.Start(t)
	// The URL comes from the environment, the tenant from a flag.
	t.Setenv("RECOLLECT_URL", a.Web().URL())
	for _, v := range []string{"RECOLLECT_NAMESPACE", "RECOLLECT_API_KEY"} {
		t.Setenv(v, "")
	}

	var id string
	t.Run("remember", func(t *testing.T) {
		out := mustRun(t, "remember", "--tenant", "acme", "--type", "policy", "--key", "git/main", "--tag", "git", "--wait", "30s",
			"Never", "push", "directly", "to", "main")
		m := regexp.MustCompile(`^stored memory (\S+) \(general/policy, layer \w+\)\n$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("remember printed %q", out)
		}
		id = m[1]
		out = mustRun(t, "remember", "--tenant", "acme", "--json", "--type", "preference", "The user prefers short commit messages")
		var resp client.LearnResponse
		if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.MemoryID == "" {
			t.Fatalf("remember --json printed %q (%v)", out, err)
		}
		if _, err := run(t, "remember", "--tenant", "acme", "--type", "gossip", "x"); err == nil || !strings.Contains(err.Error(), "memory.type") {
			t.Fatalf("a bad type gave %v", err)
		}
	})

	t.Run("recall", func(t *testing.T) {
		out := mustRun(t, "recall", "--tenant", "acme", "can", "I", "push", "to", "main?")
		if !strings.HasPrefix(out, "## Recalled Context") || !regexp.MustCompile(`(?m)^RANK\s+SCORE\s+RELEVANCE\s+DOMAIN\s+TYPE\s+LAYER\s+ID\s+CONTENT$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^1\s+\d\.\d{3}\s+\d\.\d{3}\s+general\s+policy\s+\w+\s+`+id+`\s+Never push directly to main$`).MatchString(out) {
			t.Fatalf("recall printed:\n%s", out)
		}
		if out := mustRun(t, "recall", "--tenant", "globex", "can I push to main?"); out != "No memories match.\n" {
			t.Fatalf("another tenant's recall printed %q", out)
		}
		// The LLM steps are asked for but there is no LLM: reported, not applied.
		var resp recall.Response
		out = mustRun(t, "recall", "--tenant", "acme", "--json", "--expand", "--rerank", "--file-path", "src/main.go", "can I push to main?")
		if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Memories) == 0 ||
			resp.Expand == nil || resp.Expand.Applied || resp.Rerank == nil || resp.Rerank.Applied {
			t.Fatalf("recall --expand --rerank --file-path printed %s (%v)", out, err)
		}
		resp = recall.Response{}
		out = mustRun(t, "recall", "--tenant", "acme", "--json", "--key", "Git/Main")
		if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Memories) != 1 || resp.Memories[0].Memory.ID != id || !resp.Memories[0].KeyMatch {
			t.Fatalf("recall --key git/main printed %s (%v)", out, err)
		}
		if _, err := run(t, "recall", "--tenant", "acme"); err == nil || !strings.Contains(err.Error(), "--key") {
			t.Fatalf("recall without a query or key gave %v", err)
		}
	})

	t.Run("stats", func(t *testing.T) {
		clienttest.Eventually(t, time.Minute, "both memories stored", func() error {
			var s query.Stats
			if err := json.Unmarshal([]byte(mustRun(t, "stats", "--tenant", "acme", "--json")), &s); err != nil || s.Memories != 2 || s.Types["policy"] != 1 {
				return fmt.Errorf("stats --json: %+v (%v)", s, err)
			}
			return nil
		})
		out := mustRun(t, "stats", "--tenant", "acme")
		if !regexp.MustCompile(`(?m)^tenant\s+acme$`).MatchString(out) || !regexp.MustCompile(`(?m)^types\s+policy 1, preference 1$`).MatchString(out) {
			t.Fatalf("stats printed:\n%s", out)
		}
	})

	t.Run("consolidate", func(t *testing.T) {
		out := mustRun(t, "consolidate", "--tenant", "acme")
		if !regexp.MustCompile(`^epoch manual:\S+ requested for tenant acme\n2 buffer memories are younger than 10m0s and wait for a later epoch's triage \(the server's --triage-min-age\)\n$`).MatchString(out) {
			t.Fatalf("consolidate printed %q", out)
		}
	})

	t.Run("topics", func(t *testing.T) {
		var tr query.TopicsResponse
		clienttest.Eventually(t, time.Minute, "topic tree", func() error {
			if err := json.Unmarshal([]byte(mustRun(t, "topics", "--tenant", "acme", "--json")), &tr); err != nil {
				return err
			}
			if tr.Memories != 2 || len(tr.Topics) == 0 {
				return fmt.Errorf("tree %+v", tr)
			}
			return nil
		})
		out := mustRun(t, "topics", "--tenant", "acme")
		if !strings.HasPrefix(out, "2 memories in ") || !strings.Contains(out, tr.Topics[0].ID) {
			t.Fatalf("topics printed:\n%s", out)
		}
		// An unknown id still shows the known ones, and fails (issue 20).
		out, err := run(t, "topics", "--tenant", "acme", tr.Topics[0].ID, "nope")
		if !strings.Contains(out, tr.Topics[0].MemoryIDs[0]) || err == nil || !strings.Contains(err.Error(), "no topic nope in the tree") {
			t.Fatalf("topics drill-down with an unknown id: %v\n%s", err, out)
		}
		if _, err := run(t, "topics", "--tenant", "acme", "--json", "nope"); err == nil {
			t.Fatal("topics --json of an unknown id succeeded")
		}
	})

	t.Run("context and resume", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			what string
		}{{[]string{"context", "--tenant", "acme", "git workflow"}, "context"}, {[]string{"resume", "--tenant", "acme"}, "resume"}} {
			out, err := run(t, tc.args...)
			want := fmt.Sprintf("server %s does not support %s yet (404)", a.Web().URL(), tc.what)
			if err != nil && err.Error() != want {
				t.Fatalf("%s: %v, want %q", tc.what, err, want)
			}
			if err == nil && strings.TrimSpace(out) == "" {
				t.Fatalf("%s printed nothing", tc.what)
			}
		}
	})

	t.Run("forget", func(t *testing.T) {
		if out := mustRun(t, "forget", "--tenant", "acme", "--key", "GIT/Main"); out != "deleted "+id+"\n" {
			t.Fatalf("forget --key printed %q", out)
		}
		if _, err := run(t, "forget", "--tenant", "acme", id); err == nil || !strings.Contains(err.Error(), "404") {
			t.Fatalf("forgetting a deleted id: %v", err)
		}
		if _, err := run(t, "forget", "--tenant", "acme"); err == nil {
			t.Fatal("forget without an id or key succeeded")
		}
		if _, err := run(t, "forget", "--tenant", "acme", "--key", "git/main", "--subject", "frank"); err == nil {
			t.Fatal("forget with a key and a subject succeeded")
		}
		mustRun(t, "remember", "--tenant", "acme", "--subject", "frank", "--wait", "30s", "Frank", "plays", "the", "cello")
		mustRun(t, "remember", "--tenant", "acme", "--subject", "grace", "--wait", "30s", "Grace", "plays", "the", "oboe")
		if out := mustRun(t, "recall", "--tenant", "acme", "--superseded", "--archived", "who plays the cello?"); !strings.Contains(out, "cello") {
			t.Fatalf("recall --superseded --archived printed %q", out)
		}
		out := mustRun(t, "forget", "--tenant", "acme", "--subject", "frank")
		if !strings.HasPrefix(out, "deleted 1 memories about frank\nerasure ") || !strings.Contains(out, ": complete\n") ||
			!regexp.MustCompile(`(?m)^streams +erased +[1-9]`).MatchString(out) {
			t.Fatalf("forget --subject printed %q, want the count and a complete receipt", out)
		}
		if out := mustRun(t, "recall", "--tenant", "acme", "--json", "--superseded", "--archived", "who plays the cello?"); strings.Contains(out, "Frank") {
			t.Fatalf("after forget --subject, recall printed %s", out)
		}
		if out := mustRun(t, "recall", "--tenant", "acme", "who plays the oboe?"); !strings.Contains(out, "Grace") {
			t.Fatalf("forget --subject frank took another subject's memory: recall printed %q", out)
		}
	})

	t.Run("audit", func(t *testing.T) { testAuditCmd(t, a) })

	t.Run("no server", func(t *testing.T) {
		_, err := run(t, "stats", "--url", "http://127.0.0.1:1", "--timeout", "5s")
		if err == nil || !strings.Contains(err.Error(), "GET /v1/stats") {
			t.Fatalf("stats against nothing: %v", err)
		}
	})
}

func TestClientCommandsAPIKey(t *testing.T) {
	const key = "cli-key-0123456789abcdef"
	file := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(file, []byte("- {key: "+key+", tenant: keyed, rate_limit: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := clienttest.Start(t, func(cfg *app.Config) { cfg.Auth.KeysFile = file })
	_, err := run(t, "stats", "--url", a.Web().URL())
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("stats without a key: %v", err)
	}
	// What Main prints names the CLI's ways to give a key, not the header.
	if msg := explain(err).Error(); !strings.Contains(msg, "--api-key") || !strings.Contains(msg, "RECOLLECT_API_KEY") || strings.Contains(msg, "Authorization") {
		t.Fatalf("stats without a key prints %q, want --api-key and RECOLLECT_API_KEY named", msg)
	}
	_, err = run(t, "stats", "--url", a.Web().URL(), "--api-key", "wrong-key-0123456789abcdef")
	if msg := explain(err).Error(); !strings.Contains(msg, "unknown API key") || !strings.Contains(msg, "--api-key") {
		t.Fatalf("stats with a wrong key prints %q", msg)
	}
	t.Setenv("RECOLLECT_API_KEY", key)
	if out := mustRun(t, "stats", "--url", a.Web().URL()); !regexp.MustCompile(`(?m)^tenant\s+keyed$`).MatchString(out) {
		t.Fatalf("stats with RECOLLECT_API_KEY printed:\n%s", out)
	}
}

func TestMCPCommand(t *testing.T) {
	a := clienttest.Start(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	root := NewRoot()
	root.SetIn(inR)
	root.SetOut(outW)
	root.SetErr(io.Discard)
	root.SetArgs([]string{"mcp", "--url", a.Web().URL(), "--tenant", "bridge"})
	done := make(chan error, 1)
	go func() {
		done <- root.ExecuteContext(context.Background())
		_ = outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_stats", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("memory_stats: %+v (%v)", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var st struct{ Tenant string }
	if err := json.Unmarshal(raw, &st); err != nil || st.Tenant != "bridge" {
		t.Fatalf("memory_stats answered %s", raw)
	}
	// Closing the client's end (stdin) ends the bridge.
	_ = cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp did not end when stdin closed")
	}
}
