package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

var _ auditlog.Redactor = (*Store)(nil)

// redactBatch bounds the ids of one mutation.
const redactBatch = 200

// redactPoll is how often Redact looks whether its mutation is done.
const redactPoll = 100 * time.Millisecond

// Redact clears before, after and reason of the tenant's rows that name
// one of ids, with a mutation (ALTER TABLE … UPDATE), and waits until no
// such row is left (every server version has mutations, not all have
// mutations_sync). ClickHouse keeps the parts a mutation replaced on disk
// until its old_parts_lifetime passes (8 minutes by default).
func (s *Store) Redact(ctx context.Context, tenant string, ids []string) (int, error) {
	total := 0
	for start := 0; start < len(ids); start += redactBatch {
		batch := ids[start:min(start+redactBatch, len(ids))]
		const where = `tenant = ? AND (before != '' OR after != '' OR (reason != '' AND reason != ?))
  AND (hasAny(memory_ids, ?) OR arrayExists(x -> position(before, x) > 0, ?) OR arrayExists(x -> position(after, x) > 0, ?))`
		args := []any{tenant, auditlog.RedactedReason, batch, batch, batch}
		n, err := s.count(ctx, where, args)
		if err != nil {
			return total, err
		}
		if n == 0 {
			continue
		}
		stmt := "ALTER TABLE " + s.t.Name() + " UPDATE before = '', after = '', reason = ? WHERE " + where
		if err := s.t.Exec(ctx, stmt, append([]any{auditlog.RedactedReason}, args...)...); err != nil {
			return total, fmt.Errorf("redact %d audit rows: %w", n, err)
		}
		for left := n; left > 0; {
			select {
			case <-ctx.Done():
				return total, fmt.Errorf("wait for the redaction of %d audit rows (%d left): %w", n, left, ctx.Err())
			case <-time.After(redactPoll):
			}
			if left, err = s.count(ctx, where, args); err != nil {
				return total, err
			}
		}
		total += int(n)
	}
	return total, nil
}

func (s *Store) count(ctx context.Context, where string, args []any) (uint64, error) {
	rows, err := s.t.Query(ctx, "SELECT count() FROM "+s.t.Name()+" WHERE "+where, args...)
	if err != nil {
		return 0, fmt.Errorf("count audit rows to redact: %w", err)
	}
	defer rows.Close()
	var n uint64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, fmt.Errorf("count audit rows to redact: %w", err)
		}
	}
	return n, rows.Err()
}
