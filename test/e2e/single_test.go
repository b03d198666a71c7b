package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/query"
)

func startSingle(t *testing.T, dir string) *app.App {
	t.Helper()
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = dir
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Topiary.Debounce = 200 * time.Millisecond
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSingleProcessPipeline(t *testing.T) {
	dir := t.TempDir()
	a := startSingle(t, dir)
	base := a.Web().URL()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = a.Stop(context.Background())
		}
	})
	if code := getJSON(t, base+"/readyz", nil); code != http.StatusOK {
		t.Fatalf("/readyz = %d", code)
	}

	// A bad event is refused whole, naming the field.
	bad := map[string]any{"events": []any{turnEvent("acme", "ok-1", "hello"), turnEvent("acme", "", "no id")}}
	if code := postJSON(t, base+"/v1/events", bad, nil); code != http.StatusBadRequest {
		t.Fatalf("invalid batch answered %d, want 400", code)
	}

	var accepted struct{ Accepted int }
	if code := postJSON(t, base+"/v1/events", turnEvent("acme", "turn-1", preferenceTurn), &accepted); code != http.StatusAccepted || accepted.Accepted != 1 {
		t.Fatalf("ingest answered %d (%+v)", code, accepted)
	}
	// A resend of the same event is accepted and stored once.
	postJSON(t, base+"/v1/events", turnEvent("acme", "turn-1", preferenceTurn), nil)
	eventually(t, 60*time.Second, "recall the indentation preference", recallIndent(t, base, "acme"))

	// Another tenant sees nothing of acme's memories.
	var other struct{ Memories []any }
	postJSON(t, base+"/v1/recall", map[string]any{"tenant": "globex", "query": "how should I indent code?"}, &other)
	if len(other.Memories) != 0 {
		t.Fatalf("tenant globex recalled %d of acme's memories", len(other.Memories))
	}

	var stats query.Stats
	eventually(t, 30*time.Second, "two facts stored once", func() error {
		getJSON(t, base+"/v1/stats?tenant=acme", &stats)
		if stats.Memories != 3 || stats.Transcripts.Memories != 1 {
			return fmt.Errorf("acme has %d memories, want 2 facts and the turn as said (%+v)", stats.Memories, stats)
		}
		return nil
	})
	if stats.Domains["user-preferences"] != 1 || stats.Domains["tool-usage"] != 1 {
		t.Fatalf("domains = %v, want one user-preferences and one tool-usage", stats.Domains)
	}

	// Topics are rebuilt after the stored events (debounced).
	eventually(t, 30*time.Second, "topic tree built", func() error {
		var tr query.TopicsResponse
		postJSON(t, base+"/v1/topics", map[string]any{"tenant": "acme"}, &tr)
		if tr.Memories != 2 || len(tr.Topics) == 0 {
			return fmt.Errorf("tree has %d memories and %d topics", tr.Memories, len(tr.Topics))
		}
		return nil
	})

	// A requested epoch decays importance.
	var before query.ListResponse
	getJSON(t, base+"/v1/memories?tenant=acme", &before)
	if code := postJSON(t, base+"/v1/consolidate", map[string]any{"tenant": "acme"}, nil); code != http.StatusAccepted {
		t.Fatalf("consolidate answered %d", code)
	}
	eventually(t, 30*time.Second, "epoch decays importance", func() error {
		var after query.ListResponse
		getJSON(t, base+"/v1/memories?tenant=acme", &after)
		for i, m := range after.Memories {
			if m.Transcript() {
				continue // what was said does not decay
			}
			if m.Importance >= before.Memories[i].Importance {
				return fmt.Errorf("memory %s importance %v not below %v", m.ID, m.Importance, before.Memories[i].Importance)
			}
		}
		return nil
	})

	// Restart from the same data dir: nothing is lost, nothing is redone.
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	stopped = true
	b := startSingle(t, dir)
	t.Cleanup(func() { _ = b.Stop(context.Background()) })
	eventually(t, 30*time.Second, "recall after restart", recallIndent(t, b.Web().URL(), "acme"))
	getJSON(t, b.Web().URL()+"/v1/stats?tenant=acme", &stats)
	if stats.Memories != 3 {
		t.Fatalf("after restart acme has %d memories, want 3", stats.Memories)
	}
	var usage []map[string]any
	_ = usage
}
