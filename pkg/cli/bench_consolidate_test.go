package cli

import (
	"testing"

	"github.com/recollect-dev/recollect/internal/bench"
	"github.com/recollect-dev/recollect/internal/llmtest"
)

// epochs returns the per-epoch objects of a consolidate result.
func epochs(t *testing.T, res map[string]any) []map[string]any {
	t.Helper()
	raw, ok := res["per_epoch"].([]any)
	if !ok {
		t.Fatalf("per_epoch = %v", res["per_epoch"])
	}
	out := make([]map[string]any, len(raw))
	for i, e := range raw {
		if out[i], ok = e.(map[string]any); !ok {
			t.Fatalf("per_epoch[%d] = %v", i, e)
		}
	}
	return out
}

func TestBenchConsolidateCommand(t *testing.T) {
	res := runBench(t, "consolidate", "--memories", "2000", "--changed", "50", "--epochs", "2", "--data-dir", t.TempDir())
	if res["initial_memories"] != 2000.0 || res["changed"] != 50.0 || res["epochs"] != 2.0 {
		t.Errorf("initial_memories, changed, epochs = %v, %v, %v", res["initial_memories"], res["changed"], res["epochs"])
	}
	// Without an LLM nothing is made: the tenant is what was written.
	if res["memories"] != 2100.0 {
		t.Errorf("memories = %v, want 2000 + 2 × 50", res["memories"])
	}
	if a := positive(t, res, "active_memories"); a > 2100 {
		t.Errorf("active_memories = %v, over the tenant's size", a)
	}
	for _, k := range []string{"p50_ms", "p99_ms", "mean_ms", "max_ms", "warmup_epochs", "rss_mb", "scroll_ms", "scroll_meta_ms", "record_bytes"} {
		positive(t, res, k)
	}
	if res["p99_ms"].(float64) < res["p50_ms"].(float64) {
		t.Errorf("p99 %v below p50 %v", res["p99_ms"], res["p50_ms"])
	}
	if res["llm"] != "none" || res["llm_level"] != "off" || res["llm_calls"] != 0.0 || res["usage_records"] != 0.0 {
		t.Errorf("llm, level, calls, usage records = %v, %v, %v, %v; want none, off, 0, 0", res["llm"], res["llm_level"], res["llm_calls"], res["usage_records"])
	}
	es := epochs(t, res)
	if len(es) != 2 {
		t.Fatalf("%d epochs reported, want 2", len(es))
	}
	superseded := 0.0
	for i, e := range es {
		positive(t, e, "ms")
		positive(t, e, "journal_bytes")
		// Every active memory loses importance each epoch: decay always
		// has work, and the epoch writes every memory it changed.
		if w, d := positive(t, e, "written_records"), positive(t, e, "event", "decayed"); w < d {
			t.Errorf("epoch %d wrote %v records, fewer than the %v memories it decayed", i+1, w, d)
		}
		// Payload updates log the memories without their vectors, most
		// of a whole record.
		if lb, w := positive(t, e, "log_bytes"), e["written_records"].(float64); lb > w*res["record_bytes"].(float64)/2 {
			t.Errorf("epoch %d logged %v bytes for %v records of %v bytes: vectors written again?", i+1, lb, w, res["record_bytes"])
		}
		if got, want := e["event"].(map[string]any)["memories"], 2000.0+50*float64(i+1); got != want {
			t.Errorf("epoch %d: event memories = %v, want %v", i+1, got, want)
		}
		if n := positive(t, e, "journal_ops"); n < 2 {
			t.Errorf("epoch %d: %v operations logged", i+1, n)
		}
		s, _ := e["event"].(map[string]any)["superseded"].(float64)
		superseded += s
	}
	// New memories restate existing keys: key supersession has work.
	if superseded == 0 {
		t.Error("no memory superseded by a shared key in either epoch")
	}
}

// TestBenchConsolidateLLM runs the LLM phases against the scripted
// server: every call the epochs count is in the usage log, and each
// epoch's calls stay under the rules' bounds.
func TestBenchConsolidateLLM(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(bench.ConsolidationAnswer([]string{r.System(), r.User()}))
	})
	res := runBench(t, "consolidate", "--memories", "1500", "--changed", "60", "--epochs", "2", "--llm-url", s.URL(), "--llm-model", "m")
	if res["llm_level"] != "auto" {
		t.Errorf("llm_level = %v, want auto (the default with a URL)", res["llm_level"])
	}
	calls := positive(t, res, "llm_calls")
	if res["usage_records"] != calls {
		t.Errorf("usage_records = %v, llm_calls = %v: every call is in the usage log", res["usage_records"], calls)
	}
	if n := float64(len(s.Requests())); n != calls {
		t.Errorf("the server saw %v requests, the epochs counted %v calls", n, calls)
	}
	for i, e := range epochs(t, res) {
		by, _ := e["usage_by_component"].(map[string]any)
		pairs, _ := by["merge"].(float64)
		reconcile, _ := by["reconcile"].(float64)
		if pairs+reconcile > 40 {
			t.Errorf("epoch %d: %v merge and %v reconcile calls, over --consolidate-max-pair-calls 40", i+1, pairs, reconcile)
		}
		if tri, _ := by["triage"].(float64); tri > 5 {
			t.Errorf("epoch %d: %v triage calls, over 5", i+1, tri)
		}
	}
	if pairs, _ := res["usage_by_component"].(map[string]any)["merge"].(float64); pairs == 0 {
		t.Errorf("no merge call: the near duplicates were not found (usage %v)", res["usage_by_component"])
	}
}
