package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// Read selects with bound parameters, newest first (time, then sequence,
// then write order). A time bound filters the time column to the second,
// which the primary key serves, and time_ns exactly.
func (s *Store) Read(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error) {
	q, err := q.Normalized()
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	d := s.t.Dialect()
	where := []string{"tenant = ?"}
	args := []any{q.Tenant}
	if !q.Since.IsZero() {
		where = append(where, "time >= "+d.TimeArg(), "time_ns >= ?")
		args = append(args, secondLiteral(q.Since), q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		where = append(where, "time < "+d.TimeArg(), "time_ns < ?")
		args = append(args, secondLiteral(q.Until.Truncate(time.Second).Add(time.Second)), q.Until.UnixNano())
	}
	for _, f := range []struct{ column, value string }{
		{"phase", q.Phase}, {"op", q.Op}, {"epoch", q.Epoch},
	} {
		if f.value != "" {
			where = append(where, f.column+" = ?")
			args = append(args, f.value)
		}
	}
	if q.MemoryID != "" {
		where = append(where, "has(memory_ids, ?)")
		args = append(args, q.MemoryID)
	}
	args = append(args, q.Limit)
	query := "SELECT " + selectColumns + " FROM " + s.t.Name() + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY time_ns DESC, seq DESC, ord DESC LIMIT ?"
	rows, err := s.t.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	defer rows.Close()
	out := []auditlog.Entry{}
	for rows.Next() {
		var (
			e             auditlog.Entry
			ns            int64
			before, after string
			applied       uint8
		)
		if err := rows.Scan(&ns, &e.Tenant, &e.Epoch, &e.Seq, &e.Phase, &e.Op, &e.MemoryIDs, &before, &after,
			&applied, &e.Reason, &e.Decider, &e.Model); err != nil {
			return nil, fmt.Errorf("scan audit entry from %s: %w", s.t.Name(), err)
		}
		e.Time = time.Unix(0, ns).UTC()
		e.Applied = applied == 1
		if len(e.MemoryIDs) == 0 {
			e.MemoryIDs = nil
		}
		if before != "" {
			e.Before = json.RawMessage(before)
		}
		if after != "" {
			e.After = json.RawMessage(after)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", s.t.Name(), err)
	}
	return out, nil
}
