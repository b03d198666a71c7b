package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// runBench runs `recollect bench <args> --json` and decodes its one object.
func runBench(t *testing.T, args ...string) map[string]any {
	t.Helper()
	cmd := newBenchCmd()
	var out, stderr bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&stderr)
	cmd.SetArgs(append(args, "--json"))
	cmd.SetContext(t.Context())
	if err := cmd.Execute(); err != nil {
		t.Fatalf("bench %v: %v", args, err)
	}
	if stderr.Len() != 0 { // a pipe: no progress
		t.Fatalf("bench %v in a pipe wrote to stderr: %q", args, stderr.String())
	}
	var res map[string]any
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("decode %q: %v", out.String(), err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", out.String())
	}
	// Every bench command has these, whatever else it reports.
	for _, k := range []string{"p50_ms", "p99_ms", "qps", "memories"} {
		if _, ok := res[k].(float64); !ok {
			t.Fatalf("bench %v: no number %q in %v", args, k, res)
		}
	}
	positive(t, res, "qps")
	// Every benchmark says where it ran.
	if m, _ := res["machine"].(map[string]any); m["go_version"] == "" || m["cpu"] == "" || m["cpus"] == nil || m["load_avg_1m"] == nil {
		t.Errorf("bench %v: machine = %v, want cpu, cpus, go_version and load_avg_1m", args, res["machine"])
	}
	return res
}

// positive returns the positive finite number at the path keys.
func positive(t *testing.T, res map[string]any, keys ...string) float64 {
	t.Helper()
	var v any = res
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q in %v", keys, k, res)
		}
		v = m[k]
	}
	x, ok := v.(float64)
	if !ok || x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		t.Fatalf("%v = %v, want a positive number (result %v)", keys, v, res)
	}
	return x
}

func TestBenchEmbedCommand(t *testing.T) {
	res := runBench(t, "embed", "--batch", "8", "--batches", "1", "--queries", "5", "--long-messages", "0")
	for _, k := range []string{"sentences_per_sec", "sentences_per_sec_per_core", "query_ms_p50", "query_ms_p99", "rss_mb", "tokens_per_sentence", "cpus"} {
		positive(t, res, k)
	}
	if res["batch"] != 8.0 {
		t.Errorf("batch = %v, want 8", res["batch"])
	}
	if p50, p99 := res["query_ms_p50"].(float64), res["query_ms_p99"].(float64); p99 < p50 {
		t.Errorf("query p99 %v < p50 %v", p99, p50)
	}
	// The model alone holds ~90 MB of weights.
	if rss := res["rss_mb"].(float64); rss < 50 {
		t.Errorf("rss_mb = %v, want the model's weights counted", rss)
	}
}

func TestBenchStoreCommand(t *testing.T) {
	// 2,100 memories in one tenant fill two chunks of vectors, which the
	// store maps from its vector cache rather than keeping on the heap.
	for _, tc := range []struct{ memories, tenants int }{{200, 1}, {200, 4}, {2100, 1}} {
		t.Run(strconv.Itoa(tc.memories)+"_memories_"+strconv.Itoa(tc.tenants)+"_tenants", func(t *testing.T) {
			res := runBench(t, "store", "--memories", strconv.Itoa(tc.memories), "--tenants", strconv.Itoa(tc.tenants),
				"--queries", "20", "--recall-queries", "5", "--dir", t.TempDir())
			if res["memories"] != float64(tc.memories) || res["tenants"] != float64(tc.tenants) {
				t.Errorf("memories, tenants = %v, %v", res["memories"], res["tenants"])
			}
			if res["tenant_memories"] != float64(tc.memories/tc.tenants) {
				t.Errorf("tenant_memories = %v", res["tenant_memories"])
			}
			for _, k := range []string{"p50_ms", "p99_ms", "dense_p50_ms", "text_p50_ms", "inserts_per_sec", "reopen_s", "scan_floor_ms", "exact_search_over_scan_floor"} {
				positive(t, res, k)
			}
			// The engine is exact: the brute-force scan must agree fully.
			if res["recall_at_10"] != 1.0 {
				t.Errorf("recall_at_10 = %v, want 1 from an exact engine", res["recall_at_10"])
			}
			// Each memory stores at least its 384 float32s, on disk and in
			// memory: on the heap, or memory-mapped once a tenant is big.
			if disk := positive(t, res, "bytes_per_memory", "disk"); disk < 384*4 {
				t.Errorf("disk bytes per memory = %v, want >= %d", disk, 384*4)
			}
			heap := positive(t, res, "bytes_per_memory", "heap")
			bpm := res["bytes_per_memory"].(map[string]any)
			if mapped, ok := bpm["mapped"].(float64); !ok || heap+mapped < 384*4 {
				t.Errorf("heap + mapped bytes per memory = %v + %v, want >= %d", heap, bpm["mapped"], 384*4)
			}
			if mapped, _ := bpm["mapped"].(float64); tc.memories > 2048 && runtime.GOOS == "linux" && mapped < 2048*384*4/float64(tc.memories) {
				t.Errorf("mapped bytes per memory = %v, want the full chunks' vectors", mapped)
			}
			for _, k := range []string{"rss_anon", "rss_file", "rss_file_after_searches"} {
				if _, ok := bpm[k].(float64); !ok {
					t.Errorf("bytes_per_memory.%s missing", k)
				}
			}
			if res["note"] == "" {
				t.Error("no note")
			}
		})
	}
}

func TestBenchRecallCommand(t *testing.T) {
	res := runBench(t, "recall", "--memories", "200", "--tenants", "2", "--queries", "20", "--concurrency", "4", "--single-queries", "3",
		"--learn-waits", "5", "--vectors", "random")
	if res["vectors"] != "random" {
		t.Errorf("vectors = %v, want random", res["vectors"])
	}
	for _, k := range []string{"p50_ms", "p99_ms", "qps", "concurrent_p50_ms", "concurrent_p99_ms", "candidates_per_channel", "learn_wait_p50_ms", "learn_wait_p99_ms"} {
		positive(t, res, k)
	}
	if res["memories"] != 200.0 || res["clients"] != 4.0 || res["concurrency"] != 4.0 || res["queries"] != 20.0 || res["learn_waits"] != 5.0 {
		t.Errorf("memories, clients, concurrency, queries, learn_waits = %v, %v, %v, %v, %v",
			res["memories"], res["clients"], res["concurrency"], res["queries"], res["learn_waits"])
	}
	if runtime.GOOS == "linux" {
		positive(t, res, "cpu_ms_per_recall") // the process's CPU time over the concurrent phase
	}
	if s, ok := res["steal_share"].(float64); !ok || s < 0 || s > 1 {
		t.Errorf("steal_share = %v, want a share in [0, 1]", res["steal_share"])
	}
	p50, _ := res["learn_wait_p50_ms"].(float64)
	if p99, _ := res["learn_wait_p99_ms"].(float64); p99 < p50 {
		t.Errorf("learn wait p99 %v below p50 %v", res["learn_wait_p99_ms"], res["learn_wait_p50_ms"])
	}
}

func TestBenchLearnCommand(t *testing.T) {
	res := runBench(t, "learn", "--memories", "50", "--learns", "6", "--writers", "1,3", "--duplicates", "4")
	for _, k := range []string{"p50_ms", "p99_ms", "qps"} {
		positive(t, res, k)
	}
	runs, _ := res["runs"].([]any)
	if len(runs) != 2 {
		t.Fatalf("runs = %v, want one per writer count", res["runs"])
	}
	for i, want := range []float64{1, 3} {
		run := runs[i].(map[string]any)
		if run["writers"] != want || run["learns"] != 6.0 || run["timed_out"] != 0.0 || run["merged"] != 0.0 {
			t.Errorf("run %d = %v, want %v writers, 6 learns, none timed out or merged", i, run, want)
		}
	}
	// Every reworded re-learn is folded into the memory it restates, and
	// answered as merged rather than after the wait runs out.
	dup, _ := res["duplicates"].(map[string]any)
	if dup["learns"] != 4.0 || dup["merged"] != 4.0 || dup["timed_out"] != 0.0 {
		t.Errorf("duplicates = %v, want 4 learns, all merged, none timed out", dup)
	}
	m, _ := res["machine"].(map[string]any)
	if m["go_version"] == "" || m["cpus"] == 0.0 {
		t.Errorf("machine = %v, want the Go version and CPU count", m)
	}
}

func TestBenchIngestCommand(t *testing.T) {
	res := runBench(t, "ingest", "--events", "400", "--batch", "20", "--clients", "2")
	for _, k := range []string{"events_per_sec", "raw_publish_per_sec", "ratio", "p50_ms", "p99_ms"} {
		positive(t, res, k)
	}
	if res["events"] != 400.0 || res["memories"] != 0.0 {
		t.Errorf("events, memories = %v, %v; want 400, 0", res["events"], res["memories"])
	}
	// 20 requests of 20 events: the request rate is the event rate / 20.
	if qps, eps := res["qps"].(float64), res["events_per_sec"].(float64); math.Abs(qps*20-eps) > eps*1e-6 {
		t.Errorf("qps %v × 20 != events_per_sec %v", qps, eps)
	}
}

func TestBenchExtractCommand(t *testing.T) {
	res := runBench(t, "extract", "--conversations", "50", "--turns", "4", "--handled", "40", "--extractions", "3", "--model-delay", "0s")
	for _, k := range []string{"turns_per_sec", "handled_turns_per_sec", "facts_per_turn", "memories", "p50_ms", "p99_ms"} {
		positive(t, res, k)
	}
	if res["qps"] != res["turns_per_sec"] {
		t.Errorf("qps %v, want turns_per_sec %v", res["qps"], res["turns_per_sec"])
	}
	if llm, ok := res["llm"].([]any); !ok || len(llm) != 1 {
		t.Errorf("llm = %v, want one model delay", res["llm"])
	}
}

// TestBenchProgressOnTerminal runs every benchmark, small, with stderr a
// terminal: each long phase draws its bar there, finished, and stdout holds
// the result alone.
func TestBenchProgressOnTerminal(t *testing.T) {
	for _, tc := range []struct {
		args []string
		bars []string
	}{
		{[]string{"embed", "--batch", "4", "--batches", "2", "--queries", "3", "--long-messages", "0"},
			[]string{"cores 100% |", "(2/2", "embedding queries 100% |", "(3/3"}},
		{[]string{"store", "--memories", "300", "--queries", "4", "--recall-queries", "1", "--dir", t.TempDir()},
			[]string{"filling the store 100% |", "(300/300", "timing searches 100% |", "(4/4"}},
		{[]string{"recall", "--memories", "100", "--queries", "6", "--concurrency", "2", "--single-queries", "2", "--learn-waits", "2"},
			[]string{"filling the store 100% |", "recalls from 1 clients 100% |", "(2/2", "recalls from 2 clients 100% |", "(6/6", "learns with wait 100% |"}},
		{[]string{"learn", "--memories", "20", "--learns", "3", "--writers", "2", "--duplicates", "2"},
			[]string{"filling the store 100% |", "warm-up 100% |", "learns from 2 writers 100% |", "(3/3", "duplicates 100% |", "(2/2"}},
		{[]string{"ingest", "--events", "40", "--batch", "10", "--clients", "2"},
			[]string{"posting events 100% |", "(40/40"}},
		{[]string{"extract", "--conversations", "5", "--turns", "2", "--handled", "7", "--extractions", "2", "--model-delay", "0s"},
			[]string{"handling turns 100% |", "(7/7", "llm extractions, model 0s 100% |", "(7/7"}},
		{[]string{"consolidate", "--memories", "300", "--changed", "5", "--epochs", "2", "--data-dir", t.TempDir()},
			[]string{"filling the tenant 100% |", "(300/300", "untimed epochs", "timed epochs 100% |", "(2/2"}},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			stderr := &syncBuffer{}
			asTerminal(t, stderr)
			cmd := newBenchCmd()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(stderr)
			cmd.SetArgs(append(tc.args, "--json"))
			cmd.SetContext(t.Context())
			if err := cmd.Execute(); err != nil {
				t.Fatalf("bench %v: %v", tc.args, err)
			}
			for _, want := range tc.bars {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if !json.Valid(out.Bytes()) {
				t.Errorf("stdout is not the result alone: %q", out.String())
			}
		})
	}
}
