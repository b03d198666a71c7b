package cli

import (
	"bytes"
	"context"
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
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
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
			resp, err := c.Recall(ctx, recall.Request{Tenant: "acme", Query: word})
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
	clienttest.Eventually(t, 30*time.Second, "every memory on the new model", func() error {
		if err := findsAll(); err != nil {
			t.Fatalf("during reindex: %v", err)
		}
		got, err := models()
		if err != nil {
			return err
		}
		if got["other-embed"] != len(facts) {
			return fmt.Errorf("models %v", got)
		}
		return nil
	})
	if err := findsAll(); err != nil {
		t.Fatal(err)
	}
}
