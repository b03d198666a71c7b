package cli

import "testing"

// TestBenchStoreApproximate forces the approximate search on a small store
// and checks that the benchmark reports its quality against the exact one.
func TestBenchStoreApproximate(t *testing.T) {
	res := runBench(t, "store", "--memories", "800", "--tenants", "1", "--approx-min-rows", "100",
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
}
