package deploy

import (
	"encoding/json"
	"os"
	"testing"
)

// grafanaDashboard is the part of the dashboard JSON the check reads.
type grafanaDashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// TestDashboardMetricsExist: every query of the Grafana dashboard uses
// metrics a running process exports (or pkg/ registers).
func TestDashboardMetricsExist(t *testing.T) {
	served := servedProcess(t)
	raw, err := os.ReadFile("grafana/recollect.json")
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("grafana/recollect.json: %v", err)
	}
	if len(d.Panels) == 0 {
		t.Fatal("dashboard has no panels")
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			checkExpr(t, "dashboard panel "+p.Title, tg.Expr, served)
		}
	}
}
