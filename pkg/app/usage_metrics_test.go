package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// TestUsageMetricsWithPrices: the usage module counts records into the
// model metrics, pricing configured models and the built-in one at 0.
func TestUsageMetricsWithPrices(t *testing.T) {
	var cfg Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Usage.Prices = "gpt-4o-mini=0.15/0.60"
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc, err := a.initUsage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a.usage.Record(ctx, usage.Record{Tenant: "acme", Component: "extractor", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 2_000_000, OutputTokens: 1_000_000})
	a.usage.Record(ctx, usage.Record{Tenant: "acme", Component: "embedder", Provider: "builtin", Model: minilm.ModelName, InputTokens: 12})
	if err := a.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := svc.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	mfs, err := a.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	cost := map[string]float64{}
	var calls float64
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var model string
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "model" {
					model = lp.GetValue()
				}
			}
			switch mf.GetName() {
			case "recollect_model_cost_usd_total":
				cost[model] = m.GetCounter().GetValue()
			case "recollect_model_calls_total":
				calls += m.GetCounter().GetValue()
			case "recollect_usage_records_written_total":
				if v := m.GetCounter().GetValue(); v != 2 {
					t.Errorf("written = %v, want 2", v)
				}
			}
		}
	}
	if calls != 2 {
		t.Errorf("calls = %v, want 2", calls)
	}
	if c, ok := cost["gpt-4o-mini"]; !ok || c < 0.8999 || c > 0.9001 {
		t.Errorf("gpt-4o-mini cost = %v (%v), want 0.9", c, ok)
	}
	if c, ok := cost[minilm.ModelName]; !ok || c != 0 {
		t.Errorf("%s cost = %v (%v), want a series at 0", minilm.ModelName, c, ok)
	}
}

func TestUsagePricesRefused(t *testing.T) {
	var cfg Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = t.TempDir()
	cfg.Usage.Prices = "gpt-4o-mini=0.15/0.60,gpt-4o=2.5"
	_, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "usage-prices") || !strings.Contains(err.Error(), `"gpt-4o=2.5"`) {
		t.Fatalf("New with a bad price = %v, want an error naming usage-prices and the entry", err)
	}
}
