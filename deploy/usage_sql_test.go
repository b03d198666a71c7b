package deploy

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/chconn/chconntest"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/clickhouse"
)

var (
	sqlString     = regexp.MustCompile(`'(?:[^'\\]|\\.)*'`)
	sqlMacro      = regexp.MustCompile(`\$__\w+`)
	sqlTable      = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+([A-Za-z_][\w.]*)`)
	sqlAlias      = regexp.MustCompile(`(?i)\bAS\s+([A-Za-z_]\w*)`)
	sqlIdentifier = regexp.MustCompile(`[A-Za-z_]\w*(\s*\()?`)
	timeFilter    = regexp.MustCompile(`\$__timeFilter\((\w+)\)`)
)

// sqlKeywords are the words of SQL a dashboard query may use besides
// columns, aliases and functions (words followed by "(").
var sqlKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`SELECT FROM WHERE GROUP BY ORDER ASC DESC LIMIT OFFSET AND OR NOT AS IN IS
		NULL HAVING DISTINCT BETWEEN LIKE CASE WHEN THEN ELSE END WITH INTERVAL`) {
		sqlKeywords[k] = true
	}
}

// checkUsageSQL reads a ClickHouse panel's query: it may read only the
// usage table (clickhouse.DefaultTable, the table the deployments use),
// and every other word that is not a keyword, function or alias must be
// one of the table's columns (clickhouse.Columns, the schema's own list).
func checkUsageSQL(sql string) []error {
	if strings.TrimSpace(sql) == "" {
		return []error{fmt.Errorf("a ClickHouse query without rawSql")}
	}
	var errs []error
	text := sqlMacro.ReplaceAllString(sqlString.ReplaceAllString(sql, "''"), "")
	tables := map[string]bool{}
	for _, m := range sqlTable.FindAllStringSubmatch(text, -1) {
		tables[m[1]] = true
		if m[1] != clickhouse.DefaultTable {
			errs = append(errs, fmt.Errorf("query reads table %s: the usage log is %s", m[1], clickhouse.DefaultTable))
		}
	}
	if len(tables) == 0 {
		errs = append(errs, fmt.Errorf("query %q reads no table", sql))
	}
	aliases := map[string]bool{}
	for _, m := range sqlAlias.FindAllStringSubmatch(text, -1) {
		aliases[m[1]] = true
	}
	columns := clickhouse.Columns()
	seen := map[string]bool{}
	for _, m := range sqlIdentifier.FindAllStringSubmatch(text, -1) {
		word := m[0]
		if m[1] != "" || sqlKeywords[strings.ToUpper(word)] || aliases[word] || tables[word] || seen[word] {
			continue
		}
		seen[word] = true
		if !slices.Contains(columns, word) {
			errs = append(errs, fmt.Errorf("query uses %s: not a column of %s (columns: %s)", word, clickhouse.DefaultTable, strings.Join(columns, ", ")))
		}
	}
	return errs
}

// TestUsageSQLCheckCatches: the static check refuses a query that strays
// from the usage schema, and passes the one the dashboard is built on.
func TestUsageSQLCheckCatches(t *testing.T) {
	good := "SELECT tenant, sum(input_tokens) AS tokens_in FROM recollect_usage WHERE $__timeFilter(time) AND outcome != 'no such' GROUP BY tenant ORDER BY tokens_in DESC"
	if errs := checkUsageSQL(good); len(errs) != 0 {
		t.Fatalf("a good query refused: %v", errs)
	}
	for _, bad := range []string{
		strings.Replace(good, "input_tokens", "tokens", 1),                // no such column
		strings.Replace(good, "recollect_usage", "recollect_audit", 1),    // another table
		strings.Replace(good, "GROUP BY tenant", "GROUP BY namespace", 1), // no such column
		"",
	} {
		if errs := checkUsageSQL(bad); len(errs) == 0 {
			t.Errorf("checkUsageSQL accepted %q", bad)
		}
	}
}

// TestDashboardUsageQueriesRun runs every ClickHouse query of the
// dashboard on a real server against the table pkg/usage/clickhouse
// creates, with Grafana's time filter expanded: the server itself refuses
// an unknown table or column, and the query must return the one record
// written.
func TestDashboardUsageQueriesRun(t *testing.T) {
	var queries []string
	for _, p := range readDashboard(t).Panels {
		for _, tg := range p.Targets {
			if p.datasourceType(tg) == clickHouseDatasource {
				queries = append(queries, tg.RawSQL)
			}
		}
	}
	if len(queries) == 0 {
		t.Fatal("the dashboard has no ClickHouse panel (tokens per tenant)")
	}
	dsn := testserver.ClickHouse(t)
	ctx := context.Background()
	s, err := clickhouse.Open(ctx, clickhouse.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now().UTC()
	if err := s.Write(ctx, []usage.Record{{Time: now, Tenant: "acme", Component: "extractor", Provider: "openai",
		Model: "gpt-4o-mini", InputTokens: 100, OutputTokens: 10, Duration: time.Second, Outcome: usage.OutcomeOK}}); err != nil {
		t.Fatal(err)
	}
	conn := chconntest.Conn(t, dsn)
	from, to := now.Add(-time.Hour).Unix(), now.Add(time.Hour).Unix()
	for _, q := range queries {
		sql := timeFilter.ReplaceAllString(q, fmt.Sprintf("$1 >= toDateTime(%d) AND $1 <= toDateTime(%d)", from, to))
		if m := sqlMacro.FindString(sql); m != "" {
			t.Errorf("query uses Grafana macro %s, which this check does not expand:\n%s", m, q)
			continue
		}
		rows, err := conn.Query(ctx, sql)
		if err != nil {
			t.Errorf("ClickHouse refused the dashboard query:\n%s\n%v", q, err)
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Errorf("read the dashboard query's rows:\n%s\n%v", q, err)
		}
		rows.Close()
		if n == 0 {
			t.Errorf("the dashboard query returned no row for the one record written:\n%s", q)
		}
	}
}
