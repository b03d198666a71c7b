package metered

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/jsonl"
)

var prices = usage.Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.60}}.WithFree("all-MiniLM-L6-v2")

func records() []usage.Record {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return []usage.Record{
		{Time: at, Tenant: "acme", Component: "extractor", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 1_000_000, OutputTokens: 100_000, Duration: 2 * time.Second},
		{Time: at, Tenant: "globex", Component: "extractor", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 500_000, OutputTokens: 0, Duration: 3 * time.Second, Outcome: usage.OutcomeError},
		{Time: at, Tenant: "acme", Component: "embedder", Provider: "builtin", Model: "all-MiniLM-L6-v2", InputTokens: 40, Duration: 20 * time.Millisecond},
		{Time: at, Tenant: "acme", Component: "query", Provider: "ollama", Model: "llama3", InputTokens: 10, OutputTokens: 5, Duration: time.Second},
	}
}

// TestCountsWhatTheLogHolds: the counters agree with the totals of the
// usage log the same records went to through a real buffered sink.
func TestCountsWhatTheLogHolds(t *testing.T) {
	ctx := context.Background()
	log, err := jsonl.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	reg := prometheus.NewPedanticRegistry()
	s, err := New(usage.NewBuffered(log), prices, reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records() {
		s.Record(ctx, r)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	totals, err := log.Totals(ctx, usage.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(totals) != 3 {
		t.Fatalf("log totals %+v: want 3 component/model pairs", totals)
	}
	m := gather(t, reg)
	for _, tot := range totals {
		cm := "component=" + tot.Component + ",model=" + tot.Model
		calls := m.sum("recollect_model_calls_total", cm)
		if calls != float64(tot.Calls) {
			t.Errorf("%s: %v calls counted, log holds %d", cm, calls, tot.Calls)
		}
		if errs := m.value("recollect_model_calls_total", cm+",outcome=error"); errs != float64(tot.Errors) {
			t.Errorf("%s: %v errors counted, log holds %d", cm, errs, tot.Errors)
		}
		if in := m.value("recollect_model_tokens_total", cm+",direction=input"); in != float64(tot.InputTokens) {
			t.Errorf("%s: %v input tokens counted, log holds %d", cm, in, tot.InputTokens)
		}
		if out := m.value("recollect_model_tokens_total", cm+",direction=output"); out != float64(tot.OutputTokens) {
			t.Errorf("%s: %v output tokens counted, log holds %d", cm, out, tot.OutputTokens)
		}
	}
	// 1.5M input at 0.15 + 0.1M output at 0.60 = 0.225 + 0.06
	if got := m.value("recollect_model_cost_usd_total", "component=extractor,model=gpt-4o-mini"); math.Abs(got-0.285) > 1e-9 {
		t.Errorf("extractor cost = %v, want 0.285", got)
	}
	if !m.has("recollect_model_cost_usd_total", "component=embedder,model=all-MiniLM-L6-v2") {
		t.Error("the built-in model has no cost series (it costs 0)")
	}
	if m.has("recollect_model_cost_usd_total", "component=query,model=llama3") {
		t.Error("an unpriced model has a cost series")
	}
	if n := m.histCount("recollect_model_call_duration_seconds", "component=extractor"); n != 2 {
		t.Errorf("extractor duration observations = %d, want 2", n)
	}
	if sum := m.histSum("recollect_model_call_duration_seconds", "component=extractor"); sum != 5 {
		t.Errorf("extractor duration sum = %v s, want 5", sum)
	}
}

// TestCountsWhileTheBackendIsDown: a call counts once even when the usage
// backend cannot take it and the buffer drops it.
func TestCountsWhileTheBackendIsDown(t *testing.T) {
	ctx := context.Background()
	log, err := jsonl.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil { // every write fails from now on
		t.Fatal(err)
	}
	buf := usage.NewBuffered(log, usage.WithCapacity(1), usage.WithFlushInterval(time.Hour))
	defer buf.Close()
	reg := prometheus.NewPedanticRegistry()
	s, err := New(buf, prices, reg)
	if err != nil {
		t.Fatal(err)
	}
	rs := records()
	for _, r := range rs {
		s.Record(ctx, r)
	}
	if s.Flush(ctx) == nil {
		t.Fatal("flush to a closed log succeeded")
	}
	if s.Dropped() != int64(len(rs)-1) {
		t.Fatalf("dropped %d, want %d (capacity 1)", s.Dropped(), len(rs)-1)
	}
	m := gather(t, reg)
	if got := m.sum("recollect_model_calls_total", ""); got != float64(len(rs)) {
		t.Errorf("%v calls counted, want %d: dropped records count too", got, len(rs))
	}
	if got := m.value("recollect_model_tokens_total", "component=query,model=llama3,direction=output"); got != 5 {
		t.Errorf("query output tokens = %v, want 5", got)
	}
}

func TestRegisterTwiceFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	buf := usage.NewBuffered(nopWriter{})
	defer buf.Close()
	if _, err := New(buf, nil, reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(buf, nil, reg); err == nil {
		t.Fatal("registering the metrics twice on one registry succeeded")
	}
}

type nopWriter struct{}

func (nopWriter) Write(context.Context, []usage.Record) error { return nil }

// families is what a registry gathered, by name.
type families map[string]*dto.MetricFamily

func gather(t *testing.T, reg *prometheus.Registry) families {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := families{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// matching yields the metrics of name whose labels include every k=v of
// sel ("" selects all).
func (f families) matching(name, sel string) []*dto.Metric {
	var out []*dto.Metric
	mf := f[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.Metric {
		labels := map[string]string{}
		for _, lp := range m.Label {
			labels[lp.GetName()] = lp.GetValue()
		}
		ok := true
		for _, kv := range strings.Split(sel, ",") {
			if k, v, found := strings.Cut(kv, "="); found && labels[k] != v {
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

func (f families) has(name, sel string) bool { return len(f.matching(name, sel)) > 0 }

func (f families) sum(name, sel string) float64 {
	var s float64
	for _, m := range f.matching(name, sel) {
		s += m.GetCounter().GetValue()
	}
	return s
}

func (f families) value(name, sel string) float64 { return f.sum(name, sel) }

func (f families) histCount(name, sel string) uint64 {
	var n uint64
	for _, m := range f.matching(name, sel) {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}

func (f families) histSum(name, sel string) float64 {
	var s float64
	for _, m := range f.matching(name, sel) {
		s += m.GetHistogram().GetSampleSum()
	}
	return s
}
