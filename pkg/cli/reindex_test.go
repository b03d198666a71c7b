package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// startAppOn runs every module on dir; the returned stop ends it.
func startAppOn(t *testing.T, dir string, configure func(*app.Config)) (*app.App, func()) {
	t.Helper()
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("reindex", pflag.ContinueOnError), "")
	cfg.DataDir, cfg.Web.Addr = dir, "127.0.0.1:0"
	if configure != nil {
		configure(&cfg)
	}
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("build app: %v", err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatalf("start app: %v", err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop app: %v", err)
		}
	}
	t.Cleanup(stop)
	return a, stop
}

// TestReindexCommandMovesTenantToNewModel stores memories with the built-in
// model, restarts on the same data with a remote embedding model, and runs
// `recollect reindex`: every memory ends on the new model, and recall finds
// them all the while.
func TestReindexCommandMovesTenantToNewModel(t *testing.T) {
	dir := t.TempDir()
	facts := map[string]string{
		"espresso": "User drinks an espresso before every standup meeting.",
		"postgres": "The billing service stores invoices in postgres.",
		"helm":     "The team deploys the backend with helm charts.",
	}
	a, stop := startAppOn(t, dir, nil)
	c := client.New(a.Web().URL())
	ctx := context.Background()
	for _, content := range facts {
		if _, err := c.Learn(ctx, query.LearnRequest{Tenant: "acme", Wait: true, MemoryInput: memory.MemoryInput{Content: content}}); err != nil {
			t.Fatal(err)
		}
	}
	stop()

	srv := llmtest.New(t, llmtest.WithEmbeddingDims(384)) // another 384-dim model
	b, _ := startAppOn(t, dir, func(cfg *app.Config) {
		cfg.Embed.URL, cfg.Embed.Model = srv.URL(), "other-embed"
	})
	c = client.New(b.Web().URL())
	models := func() (map[string]int, error) {
		list, err := c.ListMemories(ctx, client.ListOptions{Tenant: "acme", Limit: 100})
		if err != nil {
			return nil, err
		}
		out := map[string]int{}
		for _, m := range list.Memories {
			out[m.EmbeddingModel]++
		}
		return out, nil
	}
	if got, err := models(); err != nil || got["all-MiniLM-L6-v2"] != len(facts) {
		t.Fatalf("before reindex: %v, %v", got, err)
	}
	findsAll := func() error {
		for word, content := range facts {
			resp, err := c.Recall(ctx, client.RecallRequest{Tenant: "acme", Query: word})
			if err != nil {
				return fmt.Errorf("recall %q: %w", word, err)
			}
			found := false
			for _, r := range resp.Memories {
				found = found || r.Memory.Content == content
			}
			if !found {
				return fmt.Errorf("recall %q misses %q", word, content)
			}
		}
		return nil
	}
	if err := findsAll(); err != nil {
		t.Fatal(err)
	}

	// --wait in a pipe: quiet until done, then one line; recall finds
	// every memory all the while.
	type result struct {
		stdout, stderr string
		err            error
	}
	finished := make(chan result, 1)
	go func() {
		o, e, err := runSplit("reindex", "--url", b.Web().URL(), "--tenant", "acme", "--wait", "--timeout", "2m")
		finished <- result{o, e, err}
	}()
	var res result
	for running := true; running; {
		select {
		case res = <-finished:
			running = false
		default:
			if err := findsAll(); err != nil {
				t.Fatalf("during reindex: %v", err)
			}
		}
	}
	if res.err != nil {
		t.Fatalf("reindex --wait: %v\n%s", res.err, res.stderr)
	}
	if !strings.Contains(res.stdout, "reindex of tenant acme done (manual:") || res.stderr != "" {
		t.Fatalf("reindex --wait in a pipe: stdout %q, stderr %q", res.stdout, res.stderr)
	}
	// Done means done: no polling for the memories.
	if got, err := models(); err != nil || got["other-embed"] != len(facts) {
		t.Fatalf("after reindex --wait said done: models %v, %v", got, err)
	}
	if err := findsAll(); err != nil {
		t.Fatal(err)
	}
	st, err := c.ReindexStatus(ctx, "acme")
	if err != nil || st.State != embedder.ReindexDone || st.Done != len(facts) || st.Total != len(facts) {
		t.Fatalf("state after the run: %+v, %v; want done %d of %d", st, err, len(facts), len(facts))
	}

	// Without --wait: queued, and a status read right after says so for
	// the new id, never the last run's done.
	var out bytes.Buffer
	root := NewRoot()
	root.SetOut(&out)
	root.SetArgs([]string{"reindex", "--url", b.Web().URL(), "--tenant", "acme"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "reindex of tenant acme queued") {
		t.Fatalf("output %q", out.String())
	}
	first := st.ID
	st, err = c.ReindexStatus(ctx, "acme")
	if err != nil || st.ID == first || !strings.Contains(out.String(), "("+st.ID+")") {
		t.Fatalf("state right after %q: %+v, %v", out.String(), st, err)
	}
	clienttest.Eventually(t, 30*time.Second, "the second request done", func() error {
		st, err := c.ReindexStatus(ctx, "acme")
		if err != nil {
			return err
		}
		if st.State != embedder.ReindexDone {
			return fmt.Errorf("state %+v", st)
		}
		return nil
	})

	// --wait on a terminal draws a bar on stderr.
	root = NewRoot()
	var tout, terr bytes.Buffer
	root.SetOut(&tout)
	root.SetErr(&terr)
	asTerminal(t, &terr)
	root.SetArgs([]string{"reindex", "--url", b.Web().URL(), "--tenant", "acme", "--wait"})
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(terr.String(), "reindex acme") || !strings.Contains(tout.String(), "done") {
		t.Fatalf("on a terminal: stdout %q, stderr %q; want a bar", tout.String(), terr.String())
	}
}

// TestReindexWaitReportsFailure: a request recorded failed ends the wait
// with an error naming the reason, and the bar on a terminal.
func TestReindexWaitReportsFailure(t *testing.T) {
	a := clienttest.Start(t)
	ctx := context.Background()
	statuses, err := embedder.OpenReindexStatuses(ctx, a.Bus().JetStream(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := statuses.Queue(ctx, "acme", "manual:broken"); err != nil {
		t.Fatal(err)
	}
	if err := statuses.Fail(ctx, "acme", "manual:broken", errors.New("embedding model unreachable")); err != nil {
		t.Fatal(err)
	}
	c := client.New(a.Web().URL())
	var errw bytes.Buffer
	asTerminal(t, &errw)
	_, err = waitReindex(ctx, c, "acme", "manual:broken", reindexWait{call: 10 * time.Second, every: 10 * time.Millisecond, w: &errw})
	if err == nil || !strings.Contains(err.Error(), "failed: embedding model unreachable") || !strings.Contains(err.Error(), "manual:broken") {
		t.Fatalf("wait on a failed reindex: %v", err)
	}
	if !strings.Contains(errw.String(), "reindex acme") {
		t.Fatalf("no bar on the terminal: %q", errw.String())
	}
	// A tenant never reindexed: the server's 404 says so.
	if _, err := waitReindex(ctx, c, "nobody", "manual:x", reindexWait{call: 10 * time.Second, every: 10 * time.Millisecond, w: io.Discard}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("wait on a tenant never reindexed: %v", err)
	}
}
