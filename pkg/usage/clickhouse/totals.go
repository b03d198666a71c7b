package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/chconn"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Totals sums in the server, grouped and ordered by component and model.
// A record id present more than once (a spool replay not yet merged away)
// counts once; rows without an id (written before ids) count each.
func (s *Store) Totals(ctx context.Context, q usage.Query) ([]usage.Total, error) {
	rows, err := s.t.QueryDialect(ctx, func(d chconn.Dialect) (string, []any) {
		return totalsQuery(s.t.Name(), d, q)
	})
	if err != nil {
		return nil, fmt.Errorf("sum usage: %w", err)
	}
	defer rows.Close()
	var out []usage.Total
	for rows.Next() {
		var (
			t             usage.Total
			calls, errs   uint64
			durationNanos int64
		)
		if err := rows.Scan(&t.Component, &t.Model, &calls, &errs, &t.InputTokens, &t.OutputTokens, &durationNanos); err != nil {
			return nil, fmt.Errorf("scan usage totals from %s: %w", s.t.Name(), err)
		}
		t.Calls, t.Errors, t.Duration = int64(calls), int64(errs), time.Duration(durationNanos)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read usage totals from %s: %w", s.t.Name(), err)
	}
	return out, nil
}

// totalsQuery builds Totals' query on table for dialect d.
func totalsQuery(table string, d chconn.Dialect, q usage.Query) (string, []any) {
	where := []string{"1"}
	var args []any
	if q.Tenant != "" {
		where = append(where, "tenant = ?")
		args = append(args, q.Tenant)
	}
	if !q.Since.IsZero() {
		where = append(where, "time >= "+d.TimeArg())
		args = append(args, d.TimeLiteral(q.Since))
	}
	if !q.Until.IsZero() {
		where = append(where, "time < "+d.TimeArg())
		args = append(args, d.TimeLiteral(q.Until))
	}
	const fields = "component, model, outcome, input_tokens, output_tokens, duration_ns"
	cond := strings.Join(where, " AND ")
	query := `SELECT component, model, count(), countIf(outcome != ?),
	sum(input_tokens), sum(output_tokens), sum(duration_ns)
FROM (
	SELECT ` + fields + ` FROM ` + table + ` WHERE ` + cond + ` AND id != '' LIMIT 1 BY id
	UNION ALL
	SELECT ` + fields + ` FROM ` + table + ` WHERE ` + cond + ` AND id = ''
)
GROUP BY component, model
ORDER BY component, model`
	all := append([]any{usage.OutcomeOK}, args...)
	return query, append(all, args...)
}
