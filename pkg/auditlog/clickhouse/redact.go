package clickhouse

import (
	"context"
	"fmt"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

var _ auditlog.Redactor = (*Store)(nil)

// redactBatch bounds the ids of one mutation (multiSearchAny takes at most
// 255 needles).
const redactBatch = 200

// Redact clears before, after and reason of the tenant's rows that name
// one of ids, as a synchronous mutation (mutations_sync=2: the rewritten
// parts are active when it returns). ClickHouse keeps the replaced parts on
// disk until its old_parts_lifetime passes (8 minutes by default).
func (s *Store) Redact(ctx context.Context, tenant string, ids []string) (int, error) {
	total := 0
	for start := 0; start < len(ids); start += redactBatch {
		batch := ids[start:min(start+redactBatch, len(ids))]
		where := (`tenant = ? AND (before != '' OR after != '' OR (reason != '' AND reason != ?))
  AND (hasAny(memory_ids, ?) OR multiSearchAny(before, ?) OR multiSearchAny(after, ?))`)
		args := []any{tenant, auditlog.RedactedReason, batch, batch, batch}
		rows, err := s.t.Query(ctx, "SELECT count() FROM "+s.t.Name()+" WHERE "+where, args...)
		if err != nil {
			return total, fmt.Errorf("count audit rows to redact: %w", err)
		}
		var n uint64
		if rows.Next() {
			err = rows.Scan(&n)
		}
		_ = rows.Close()
		if err != nil {
			return total, fmt.Errorf("count audit rows to redact: %w", err)
		}
		if n == 0 {
			continue
		}
		stmt := "ALTER TABLE " + s.t.Name() + " UPDATE before = '', after = '', reason = ? WHERE " + where
		sync := ch.Context(ctx, ch.WithSettings(ch.Settings{"mutations_sync": 2}))
		if err := s.t.Exec(sync, stmt, append([]any{auditlog.RedactedReason}, args...)...); err != nil {
			return total, fmt.Errorf("redact %d audit rows: %w", n, err)
		}
		total += int(n)
	}
	return total, nil
}
