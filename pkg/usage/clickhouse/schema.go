package clickhouse

import (
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// columns is the insert column list; the explicit list keeps inserts
// working on old servers and after columns are added to the table.
const columns = "time, tenant, component, provider, model, input_tokens, output_tokens, duration_ns, outcome, trace_id"

// dialect is what the server supports. Servers before 20.1 have neither
// DateTime64 nor LowCardinality outside an experimental flag (Debian
// ships 18.16), so there time is kept to the second and names are String.
type dialect struct {
	modern bool
}

func dialectOf(v *driver.ServerVersion) dialect {
	return dialect{modern: v.Version.Major > 20 || (v.Version.Major == 20 && v.Version.Minor >= 1)}
}

// createTable orders by (tenant, time) because every read filters by tenant
// and a time range; monthly partitions make dropping old months cheap.
func (d dialect) createTable(table string) string {
	timeType, name := "DateTime('UTC')", "String"
	if d.modern {
		timeType, name = "DateTime64(3, 'UTC')", "LowCardinality(String)"
	}
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
	time          %s,
	tenant        %s,
	component     %s,
	provider      %s,
	model         %s,
	input_tokens  Int64,
	output_tokens Int64,
	duration_ns   Int64,
	outcome       %s,
	trace_id      String
) ENGINE = MergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (tenant, time)`, table, timeType, name, name, name, name, name)
}

// timeArg turns a bound string into a time of the column's precision.
func (d dialect) timeArg() string {
	if d.modern {
		return "toDateTime64(?, 3, 'UTC')"
	}
	return "toDateTime(?, 'UTC')"
}

// timeLiteral formats t for timeArg. Old servers keep whole seconds, so
// the bound is truncated like the stored times are.
func (d dialect) timeLiteral(t time.Time) string {
	const layout = "2006-01-02 15:04:05"
	if d.modern {
		return t.UTC().Format(layout + ".000")
	}
	return t.UTC().Format(layout)
}

// quoteTable backquotes each part of the table name: the table is a
// validated identifier, the database comes from the DSN as is.
func quoteTable(database, table string) string {
	parts := strings.Split(table, ".")
	if len(parts) == 1 && database != "" {
		parts = []string{database, table}
	}
	esc := strings.NewReplacer("\\", "\\\\", "`", "\\`")
	for i, p := range parts {
		parts[i] = "`" + esc.Replace(p) + "`"
	}
	return strings.Join(parts, ".")
}
