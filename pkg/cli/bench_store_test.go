package cli

import "testing"

// TestBenchStoreApproximate forces the approximate search on a small store
// and checks that the benchmark reports its quality against the exact one.
func TestBenchStoreApproximate(t *testing.T) {
	res := runBench(t, "store", "--memories", "800", "--tenants", "1", "--approx-min-rows", "100", "--vectors", "random",
		"--queries", "20", "--recall-queries", "20", "--dir", t.TempDir())
	if res["approx_min_rows"] != 100.0 {
		t.Errorf("approx_min_rows = %v, want 100", res["approx_min_rows"])
	}
	for _, k := range []string{"exact_p50_ms", "exact_p99_ms", "dense_search_over_scan_floor", "exact_search_over_scan_floor"} {
		positive(t, res, k)
	}
	if r := res["recall_at_10"].(float64); r < 0.95 || r > 1 {
		t.Errorf("recall_at_10 = %v, want in [0.95, 1]", r)
	}
	if res["exact_recall_at_10"] != 1.0 {
		t.Errorf("exact_recall_at_10 = %v, want 1: the exact search must agree with brute force", res["exact_recall_at_10"])
	}
	// The tail's summary: the slowest 3 of 20 searches against the rest.
	tail, ok := res["tail"].(map[string]any)
	if !ok {
		t.Fatalf("no tail in %v", res)
	}
	if tail["slow_queries"] != 3.0 {
		t.Errorf("tail.slow_queries = %v, want 3 (the slowest 1%%, at least 3)", tail["slow_queries"])
	}
	if f, _ := tail["slow_from_ms"].(float64); f <= 0 || f > res["p99_ms"].(float64)+1e-9 {
		t.Errorf("tail.slow_from_ms = %v, want in (0, p99 %v]", tail["slow_from_ms"], res["p99_ms"])
	}
	for _, k := range []string{"slow_cpu_over_wall", "rest_cpu_over_wall", "slow_minor_faults", "rest_minor_faults", "slow_during_gc", "slow_repeat", "steal_share"} {
		if v, ok := tail[k].(float64); !ok || v < 0 {
			t.Errorf("tail.%s = %v, want a number >= 0", k, tail[k])
		}
	}
}

// TestBenchStoreIndexed indexes the tenant and checks that the benchmark
// reports the index it searched through.
func TestBenchStoreIndexed(t *testing.T) {
	res := runBench(t, "store", "--memories", "1500", "--tenants", "1", "--approx-min-rows", "100", "--vectors", "random",
		"--index-min-rows", "400", "--queries", "20", "--recall-queries", "10", "--dir", t.TempDir())
	if res["indexed_tenants"] != 1.0 || res["index_trainings"].(float64) < 1 || res["vectors"] != "random" {
		t.Errorf("indexed_tenants %v, index_trainings %v, vectors %v: want 1, >= 1, random",
			res["indexed_tenants"], res["index_trainings"], res["vectors"])
	}
	positive(t, res, "index_train_s")
	if r := res["recall_at_10"].(float64); r <= 0 || r > 1 {
		t.Errorf("recall_at_10 = %v, want in (0, 1]", r)
	}
}
