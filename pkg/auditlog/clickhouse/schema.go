package clickhouse

import (
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// columns is the insert column list, in the order of Write's values.
const columns = "time, time_ns, ord, tenant, epoch, seq, phase, op, memory_ids, applied, decider, model, reason, before, after"

// selectColumns is what Read scans, in Entry order.
const selectColumns = "time_ns, tenant, epoch, seq, phase, op, memory_ids, before, after, applied, reason, decider, model"

// schema orders by (tenant, time) because every read names a tenant and
// most a time range; monthly partitions make dropping old months cheap.
// ord is the write order, which breaks ties in reads. Servers before 20.1
// keep time to the second (see chconn.Dialect); either way time_ns keeps
// the exact time, which reads return and filter on.
func schema(d chconn.Dialect) chconn.Schema {
	name := d.NameType()
	return chconn.Schema{
		Columns: fmt.Sprintf(`	time       %s,
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
	after      String`, d.TimeType(), name, name, name, name, name),
		Engine: `MergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (tenant, time)`,
	}
}

// secondLiteral formats t truncated to the second, a bound on the time
// column at either precision that never excludes a row time_ns selects.
func secondLiteral(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format("2006-01-02 15:04:05")
}
