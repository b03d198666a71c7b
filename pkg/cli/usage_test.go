package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/jsonl"
)

// usageLog writes a local usage log into a fresh data dir.
func usageLog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	l, err := jsonl.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Add(-time.Hour)
	err = l.Write(context.Background(), []usage.Record{
		{Time: at, Tenant: "acme", Component: "extractor", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 2_000_000, OutputTokens: 500_000, Duration: time.Second, Outcome: usage.OutcomeOK},
		{Time: at, Tenant: "globex", Component: "extractor", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 1_000_000, Duration: time.Second, Outcome: usage.OutcomeOK},
		{Time: at, Tenant: "acme", Component: "embedder", Provider: "builtin", Model: minilm.ModelName, InputTokens: 30, Duration: time.Millisecond, Outcome: usage.OutcomeOK},
		{Time: at, Tenant: "acme", Component: "query", Provider: "ollama", Model: "llama3", InputTokens: 10, OutputTokens: 5, Duration: time.Second, Outcome: usage.OutcomeError},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestUsageCostColumn(t *testing.T) {
	dir := usageLog(t)
	t.Setenv("RECOLLECT_USAGE_PRICES", "")
	t.Setenv("RECOLLECT_CLICKHOUSE_DSN", "")

	out := mustRun(t, "usage", "--data-dir", dir)
	if strings.Contains(out, "COST") {
		t.Errorf("without prices usage printed a cost column:\n%s", out)
	}

	wantLines := func(t *testing.T, out string, want []string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("usage printed %d lines, want %d:\n%s", len(lines), len(want), out)
		}
		for i, w := range want {
			if !regexp.MustCompile(w).MatchString(lines[i]) {
				t.Errorf("usage printed:\n%s\nline %d does not match %s", out, i, w)
			}
		}
	}
	// gpt-4o-mini: 3M input at 0.15 + 0.5M output at 0.60 = 0.45 + 0.30;
	// the built-in model is free, llama3 has no price.
	all := []string{
		`^COMPONENT\s+MODEL\s+CALLS\s+ERRORS\s+INPUT TOKENS\s+OUTPUT TOKENS\s+TIME\s+COST \(USD\)$`,
		`^embedder\s+all-MiniLM-L6-v2\s+1\s+0\s+30\s+0\s+1ms\s+0\.00$`,
		`^extractor\s+gpt-4o-mini\s+2\s+0\s+3000000\s+500000\s+2s\s+0\.75$`,
		`^query\s+llama3\s+1\s+1\s+10\s+5\s+1s\s+-$`,
		`^TOTAL\s+\(priced models\)\s+0\.75$`,
	}
	t.Run("flag", func(t *testing.T) {
		wantLines(t, mustRun(t, "usage", "--data-dir", dir, "--usage-prices", "gpt-4o-mini=0.15/0.60"), all)
	})
	t.Run("env and tenant", func(t *testing.T) {
		t.Setenv("RECOLLECT_USAGE_PRICES", "gpt-4o-mini=0.15/0.60,llama3=0/0")
		wantLines(t, mustRun(t, "usage", "--data-dir", dir, "--tenant", "globex"), []string{
			all[0],
			`^extractor\s+gpt-4o-mini\s+1\s+0\s+1000000\s+0\s+1s\s+0\.15$`,
			`^TOTAL\s+\(priced models\)\s+0\.15$`,
		})
	})
	t.Run("json", func(t *testing.T) {
		var rows []struct {
			Model   string   `json:"model"`
			Calls   int64    `json:"calls"`
			CostUSD *float64 `json:"cost_usd"`
		}
		out := mustRun(t, "usage", "--data-dir", dir, "--usage-prices", "gpt-4o-mini=0.15/0.60", "--json")
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
			t.Fatalf("usage --json printed %s (%v)", out, err)
		}
		for _, r := range rows {
			switch r.Model {
			case "gpt-4o-mini":
				if r.CostUSD == nil || *r.CostUSD < 0.7499 || *r.CostUSD > 0.7501 || r.Calls != 2 {
					t.Errorf("gpt-4o-mini row = %+v, want 2 calls costing 0.75", r)
				}
			case "llama3":
				if r.CostUSD != nil {
					t.Errorf("unpriced llama3 has cost %v", *r.CostUSD)
				}
			}
		}
	})
	t.Run("bad prices", func(t *testing.T) {
		out, err := run(t, "usage", "--data-dir", dir, "--usage-prices", "gpt-4o-mini=0.15/0.60,gpt-4o=2.50")
		if err == nil || !strings.Contains(err.Error(), "usage-prices") || !strings.Contains(err.Error(), `"gpt-4o=2.50"`) {
			t.Fatalf("usage with a bad price = %v\n%s", err, out)
		}
	})
}

// TestUsageSources: --data-dir without a log is an error naming the path
// (it printed an empty table); --url reads the server's GET /v1/usage, and
// so does a bare `recollect usage` (issue 20).
func TestUsageSources(t *testing.T) {
	t.Setenv("RECOLLECT_CLICKHOUSE_DSN", "")
	t.Setenv("RECOLLECT_USAGE_PRICES", "")
	empty := t.TempDir()
	_, err := run(t, "usage", "--data-dir", empty)
	if err == nil || !strings.Contains(err.Error(), "no usage log at "+empty) || !strings.Contains(err.Error(), "--url") {
		t.Fatalf("usage of a data dir without a log: %v", err)
	}

	a := clienttest.Start(t, func(cfg *app.Config) { cfg.Usage.FlushInterval = 50 * time.Millisecond })
	mustRun(t, "recall", "--url", a.Web().URL(), "--tenant", "acme", "how do we indent code?")
	t.Setenv("RECOLLECT_DATA_DIR", empty) // --url wins over the environment's data dir
	clienttest.Eventually(t, time.Minute, "the recall's usage from the server", func() error {
		out, err := run(t, "usage", "--url", a.Web().URL(), "--tenant", "acme")
		if err != nil {
			return err
		}
		if !regexp.MustCompile(`(?m)^query\s+all-MiniLM-L6-v2\s+\d+\s+0\s+[1-9]\d*\s`).MatchString(out) {
			return fmt.Errorf("no query row with input tokens:\n%s", out)
		}
		return nil
	})
}
