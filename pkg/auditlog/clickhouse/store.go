// Package clickhouse keeps the audit log in ClickHouse over the native
// protocol, for a distributed deployment: one MergeTree table ordered by
// (tenant, time), written in batches with an explicit column list and read
// with bound parameters.
package clickhouse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// defaultDialTimeout replaces the driver's 30 s when the DSN sets none, so
// a down server fails a write quickly.
const defaultDialTimeout = 5 * time.Second

// codeUnknownTable is ClickHouse's UNKNOWN_TABLE error code.
const codeUnknownTable = 60

// Store is an auditlog.Log on one ClickHouse table.
type Store struct {
	conn    driver.Conn
	table   string // quoted, qualified when the DSN names a database
	addrs   string // for errors: the DSN may hold a password
	dialect dialect

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
	if dsn == "" {
		return nil, errors.New("open clickhouse audit log: empty clickhouse dsn")
	}
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	if opts.Protocol != ch.Native {
		return nil, fmt.Errorf("clickhouse dsn: want the native protocol (clickhouse://host:9000/db), got %s", opts.Protocol)
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
		return fmt.Errorf("create audit table %s on %s: %w", s.table, s.addrs, err)
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
	err := s.insert(ctx, entries, ord)
	var ex *ch.Exception
	if errors.As(err, &ex) && ex.Code == codeUnknownTable {
		if cerr := s.createTable(ctx); cerr != nil {
			return errors.Join(err, cerr)
		}
		err = s.insert(ctx, entries, ord)
	}
	return err
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

func (s *Store) insert(ctx context.Context, entries []auditlog.Entry, ord int64) error {
	batch, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+s.table+" ("+columns+")")
	if err != nil {
		return fmt.Errorf("prepare audit insert into %s on %s: %w", s.table, s.addrs, err)
	}
	defer func() {
		if !batch.IsSent() {
			_ = batch.Abort()
		}
	}()
	for i, e := range entries {
		ids := e.MemoryIDs
		if ids == nil {
			ids = []string{}
		}
		var applied uint8
		if e.Applied {
			applied = 1
		}
		t := e.Time.UTC()
		err := batch.Append(t, t.UnixNano(), ord+int64(i), e.Tenant, e.Epoch, e.Seq, e.Phase, e.Op, ids, applied,
			e.Decider, e.Model, e.Reason, compact(e.Before), compact(e.After))
		if err != nil {
			return fmt.Errorf("append audit entry to batch: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("insert %d audit entries into %s on %s: %w", len(entries), s.table, s.addrs, err)
	}
	return nil
}
