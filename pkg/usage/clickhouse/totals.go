package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// Totals sums in the server, grouped and ordered by component and model.
func (s *Store) Totals(ctx context.Context, q usage.Query) ([]usage.Total, error) {
	d := s.t.Dialect()
	where := []string{"1"}
	args := []any{usage.OutcomeOK}
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
	query := `SELECT component, model, count(), countIf(outcome != ?),
	sum(input_tokens), sum(output_tokens), sum(duration_ns)
FROM ` + s.t.Name() + `
WHERE ` + strings.Join(where, " AND ") + `
GROUP BY component, model
ORDER BY component, model`
	rows, err := s.t.Query(ctx, query, args...)
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
