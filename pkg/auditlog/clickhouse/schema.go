package clickhouse

import (
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// columns is the insert column list; the explicit list keeps inserts
// working on old servers and after columns are added to the table.
const columns = "time, time_ns, ord, tenant, epoch, seq, phase, op, memory_ids, applied, decider, model, reason, before, after"

// selectColumns is what Read scans, in Entry order.
const selectColumns = "time_ns, tenant, epoch, seq, phase, op, memory_ids, before, after, applied, reason, decider, model"

// dialect is what the server supports. Servers before 20.1 have neither
// DateTime64 nor LowCardinality outside an experimental flag (Debian ships
// 18.16): there time is kept to the second and names are String. Either
// way time_ns keeps the exact time, which reads return and filter on.
type dialect struct {
	modern bool
}

func dialectOf(v *driver.ServerVersion) dialect {
	return dialect{modern: v.Version.Major > 20 || (v.Version.Major == 20 && v.Version.Minor >= 1)}
}

// createTable orders by (tenant, time) because every read names a tenant
// and most a time range; monthly partitions make dropping old months
// cheap. ord is the write order, which breaks ties in reads.
func (d dialect) createTable(table string) string {
	timeType, name := "DateTime('UTC')", "String"
	if d.modern {
		timeType, name = "DateTime64(3, 'UTC')", "LowCardinality(String)"
	}
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
	time       %s,
	time_ns    Int64,
	ord        Int64,
	tenant     %s,
	epoch      String,
	seq        Int64,
	phase      %s,
	op         %s,
	memory_ids Array(String),
	applied    UInt8,
	decider    %s,
	model      %s,
	reason     String,
	before     String,
	after      String
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

// secondLiteral formats t truncated to the second, a bound on the time
// column at either precision that never excludes a row time_ns selects.
func secondLiteral(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format("2006-01-02 15:04:05")
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
