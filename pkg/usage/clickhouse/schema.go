package clickhouse

import (
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// columns is the insert column list, in the order of Write's values.
const columns = "time, tenant, component, provider, model, input_tokens, output_tokens, duration_ns, outcome, trace_id, id"

// schema orders by (tenant, time) because every read filters by tenant
// and a time range; monthly partitions make dropping old months cheap.
// The record id ends the key of a ReplacingMergeTree, so a record written
// twice (replayed from a spool after a crash) is merged away in the
// background; Totals counts each id once in the meantime. Tables created
// before the id column get it added (empty for their old rows, which are
// counted row by row) and keep their MergeTree engine.
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
	trace_id      String,
	id            String`, d.TimeType(), name, name, name, name, name),
		Engine: `ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (tenant, time, id)`,
		Added: []string{"id String DEFAULT ''"},
	}
}

// Columns are the names of the table's columns, in schema order: what a
// dashboard query on the table may read (checked by ./deploy).
func Columns() []string {
	return strings.Split(columns, ", ")
}
