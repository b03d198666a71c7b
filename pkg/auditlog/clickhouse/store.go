// Package clickhouse keeps the audit log in ClickHouse over the native
// protocol, for a distributed deployment: one MergeTree table ordered by
// (tenant, time), written in batches with an explicit column list and read
// with bound parameters.
package clickhouse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/chconn"
)

// Store is an auditlog.Log on one ClickHouse table.
type Store struct {
	t *chconn.Table

	mu      sync.Mutex
	lastOrd int64
}

var _ auditlog.Log = (*Store)(nil)

// Open connects to the ClickHouse of dsn (clickhouse://host:9000/db, the
// native protocol), learns the server version and creates the table if it
// is missing. It fails when the server cannot be reached within ctx.
func Open(ctx context.Context, dsn string, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := chconn.Open(ctx, dsn, cfg.table(), schema)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse audit log: %w", err)
	}
	return &Store{t: t}, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	return s.t.Close()
}

// Write inserts the batch as one insert. If the table has gone (a server
// rebuilt during an outage), it is created again and the batch retried once.
func (s *Store) Write(ctx context.Context, entries []auditlog.Entry) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("insert %d audit entries: %w", len(entries), err)
	}
	if len(entries) == 0 {
		return nil
	}
	if err := auditlog.ValidateAll(entries); err != nil {
		return fmt.Errorf("insert %d audit entries: %w", len(entries), err)
	}
	ord := s.ords(len(entries))
	if err := s.t.Insert(ctx, columns, len(entries), func(i int) []any { return row(entries[i], ord+int64(i)) }); err != nil {
		return fmt.Errorf("insert %d audit entries: %w", len(entries), err)
	}
	return nil
}

// row is e's values in the order of columns.
func row(e auditlog.Entry, ord int64) []any {
	ids := e.MemoryIDs
	if ids == nil {
		ids = []string{}
	}
	var applied uint8
	if e.Applied {
		applied = 1
	}
	t := e.Time.UTC()
	return []any{t, t.UnixNano(), ord, e.Tenant, e.Epoch, e.Seq, e.Phase, e.Op, ids, applied,
		e.Decider, e.Model, e.Reason, compact(e.Before), compact(e.After)}
}

// compact stores a snapshot as the JSON backend does: without insignificant
// space. Write validated it as JSON.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// ords reserves n increasing write-order numbers: nanoseconds of the wall
// clock, bumped past the last one, so ties in time and sequence read back
// newest first within a process and roughly so across processes (an epoch
// of a tenant runs in one process at a time).
func (s *Store) ords(n int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := max(time.Now().UnixNano(), s.lastOrd+1)
	s.lastOrd = first + int64(n) - 1
	return first
}
