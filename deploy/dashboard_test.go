package deploy

import (
	"encoding/json"
	"os"
	"testing"
)

// Grafana datasource types the dashboard may query.
const (
	promDatasource       = "prometheus"
	clickHouseDatasource = "grafana-clickhouse-datasource"
)

type grafanaDatasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type grafanaTarget struct {
	Datasource *grafanaDatasource `json:"datasource"`
	Expr       string             `json:"expr"`   // Prometheus
	RawSQL     string             `json:"rawSql"` // ClickHouse
}

type grafanaPanel struct {
	Title      string             `json:"title"`
	Datasource *grafanaDatasource `json:"datasource"`
	Targets    []grafanaTarget    `json:"targets"`
}

// grafanaDashboard is the part of the dashboard JSON the check reads.
type grafanaDashboard struct {
	Title  string         `json:"title"`
	Panels []grafanaPanel `json:"panels"`
}

// datasourceType is the target's datasource type, else its panel's.
func (p grafanaPanel) datasourceType(tg grafanaTarget) string {
	if tg.Datasource != nil && tg.Datasource.Type != "" {
		return tg.Datasource.Type
	}
	if p.Datasource != nil {
		return p.Datasource.Type
	}
	return ""
}

func readDashboard(t *testing.T) grafanaDashboard {
	t.Helper()
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
	return d
}

// TestDashboardMetricsExist: every Prometheus query of the Grafana
// dashboard uses metrics a running process exports (or pkg/ registers),
// and every ClickHouse query reads only the usage table and its columns
// as pkg/usage/clickhouse defines them.
func TestDashboardMetricsExist(t *testing.T) {
	served := servedProcess(t)
	d := readDashboard(t)
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			where := "dashboard panel " + p.Title
			switch typ := p.datasourceType(tg); typ {
			case promDatasource:
				checkExpr(t, where, tg.Expr, served)
			case clickHouseDatasource:
				for _, err := range checkUsageSQL(tg.RawSQL) {
					t.Errorf("%s: %v", where, err)
				}
			default:
				t.Errorf("%s: datasource type %q: want %s or %s", where, typ, promDatasource, clickHouseDatasource)
			}
		}
	}
}
