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
	"errors"
	"fmt"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// defaultDialTimeout replaces the driver's 30 s when the DSN sets none, so
// a down server fails a write quickly and the buffer retries.
const defaultDialTimeout = 5 * time.Second

// codeUnknownTable is ClickHouse's UNKNOWN_TABLE error code.
const codeUnknownTable = 60

// Store is a usage.Writer and usage.Reader on one ClickHouse table.
type Store struct {
	conn    driver.Conn
	table   string // quoted, qualified when the DSN names a database
	addrs   string // for errors: the DSN may hold a password
	dialect dialect
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
	if cfg.DSN == "" {
		return nil, errors.New("open clickhouse usage store: empty clickhouse dsn")
	}
	opts, err := parseDSN(cfg.DSN)
	if err != nil {
		return nil, err
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	s := &Store{
		table: quoteTable(opts.Auth.Database, cfg.table()),
		addrs: strings.Join(opts.Addr, ","),
	}
	if s.conn, err = ch.Open(opts); err != nil {
		return nil, fmt.Errorf("open clickhouse %s: %w", s.addrs, err)
	}
	if err := s.start(ctx); err != nil {
		s.conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) start(ctx context.Context) error {
	if err := s.conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping clickhouse %s: %w", s.addrs, err)
	}
	v, err := s.conn.ServerVersion()
	if err != nil {
		return fmt.Errorf("clickhouse %s server version: %w", s.addrs, err)
	}
	s.dialect = dialectOf(v)
	return s.createTable(ctx)
}

func (s *Store) createTable(ctx context.Context) error {
	if err := s.conn.Exec(ctx, s.dialect.createTable(s.table)); err != nil {
		return fmt.Errorf("create usage table %s on %s: %w", s.table, s.addrs, err)
	}
	return nil
}

// Close closes the connections.
func (s *Store) Close() error {
	if err := s.conn.Close(); err != nil {
		return fmt.Errorf("close clickhouse %s: %w", s.addrs, err)
	}
	return nil
}

// Write inserts records as one batch. If the table has gone (a server
// rebuilt during an outage), it is created again and the batch retried once.
func (s *Store) Write(ctx context.Context, records []usage.Record) error {
	if len(records) == 0 {
		return nil
	}
	err := s.insert(ctx, records)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeUnknownTable {
		if cerr := s.createTable(ctx); cerr != nil {
			return errors.Join(err, cerr)
		}
		err = s.insert(ctx, records)
	}
	return err
}

func (s *Store) insert(ctx context.Context, records []usage.Record) error {
	batch, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+s.table+" ("+columns+")")
	if err != nil {
		return fmt.Errorf("prepare usage insert into %s on %s: %w", s.table, s.addrs, err)
	}
	defer func() {
		if !batch.IsSent() {
			_ = batch.Abort()
		}
	}()
	for _, r := range records {
		err := batch.Append(r.Time, r.Tenant, r.Component, r.Provider, r.Model,
			r.InputTokens, r.OutputTokens, int64(r.Duration), r.Outcome, r.TraceID)
		if err != nil {
			return fmt.Errorf("append usage record to batch: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("insert %d usage records into %s on %s: %w", len(records), s.table, s.addrs, err)
	}
	return nil
}
