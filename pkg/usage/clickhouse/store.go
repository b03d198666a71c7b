// Package clickhouse keeps the usage log in ClickHouse over the native
// protocol: one MergeTree table ordered by (tenant, time), written in
// batches with an explicit column list and summed with GROUP BY.
//
// On servers from 20.1 time is DateTime64(3) and names LowCardinality; on
// older ones (Debian's 18.16) time is DateTime, so records and time filters
// have second precision there.
package clickhouse

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/chconn"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Store is a usage.Writer and usage.Reader on one ClickHouse table.
type Store struct {
	t *chconn.Table
}

var (
	_ usage.Writer = (*Store)(nil)
	_ usage.Reader = (*Store)(nil)
)

// Open connects, learns the server version and creates the table if it is
// missing. It fails when the server cannot be reached within ctx.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := chconn.Open(ctx, cfg.DSN, cfg.table(), schema)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse usage store: %w", err)
	}
	return &Store{t: t}, nil
}

// OpenLazy is Open without reaching the server: the table is created on
// the first write or read, or by Connect. A process can so start, and
// record usage into its buffer, while ClickHouse is down.
func OpenLazy(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, err := chconn.OpenLazy(cfg.DSN, cfg.table(), schema)
	if err != nil {
		return nil, fmt.Errorf("open clickhouse usage store: %w", err)
	}
	return &Store{t: t}, nil
}

// Connect reaches the server and creates the table unless that was done;
// it fails while the server is down.
func (s *Store) Connect(ctx context.Context) error {
	if err := s.t.Connect(ctx); err != nil {
		return fmt.Errorf("connect to the clickhouse usage store: %w", err)
	}
	return nil
}

// Close closes the connections.
func (s *Store) Close() error {
	return s.t.Close()
}

// Write inserts records as one batch. If the table has gone (a server
// rebuilt during an outage), it is created again and the batch retried once.
func (s *Store) Write(ctx context.Context, records []usage.Record) error {
	err := s.t.Insert(ctx, columns, len(records), func(i int) []any {
		r := records[i]
		return []any{r.Time, r.Tenant, r.Component, r.Provider, r.Model,
			r.InputTokens, r.OutputTokens, int64(r.Duration), r.Outcome, r.TraceID, r.ID}
	})
	if err != nil {
		return fmt.Errorf("insert %d usage records: %w", len(records), err)
	}
	return nil
}
