package clickhouse

import (
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// columns is the insert column list, in the order of Write's values.
const columns = "time, tenant, component, provider, model, input_tokens, output_tokens, duration_ns, outcome, trace_id"

// schema orders by (tenant, time) because every read filters by tenant
// and a time range; monthly partitions make dropping old months cheap.
func schema(d chconn.Dialect) chconn.Schema {
	name := d.NameType()
	return chconn.Schema{
		Columns: fmt.Sprintf(`	time          %s,
	tenant        %s,
	component     %s,
	provider      %s,
	model         %s,
	input_tokens  Int64,
	output_tokens Int64,
	duration_ns   Int64,
	outcome       %s,
	trace_id      String`, d.TimeType(), name, name, name, name, name),
		Engine: `MergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (tenant, time)`,
	}
}

// Columns are the names of the table's columns, in schema order: what a
// dashboard query on the table may read (checked by ./deploy).
func Columns() []string {
	return strings.Split(columns, ", ")
}
