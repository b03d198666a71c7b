package chconn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// defaultDialTimeout replaces the driver's 30 s when the DSN sets none, so
// a down server fails a write quickly and the caller retries.
const defaultDialTimeout = 5 * time.Second

// Schema is a table's definition on one dialect: the column definitions
// between the parentheses of CREATE TABLE, and what follows ENGINE =.
type Schema struct {
	Columns string
	Engine  string
}

// Table is one table on a ClickHouse server, with the connections to it.
type Table struct {
	conn    driver.Conn
	name    string // quoted, qualified when the DSN names a database
	addrs   string // for errors: the DSN may hold a password
	dialect Dialect
	create  string
}

// Open connects to the ClickHouse of dsn, learns the server version and
// creates table (name or database.name; the DSN's database qualifies a
// bare name) from schema if it is missing. It fails when the server
// cannot be reached within ctx.
func Open(ctx context.Context, dsn, table string, schema func(Dialect) Schema) (*Table, error) {
	if dsn == "" {
		return nil, errors.New("empty clickhouse dsn")
	}
	if table == "" {
		return nil, errors.New("empty clickhouse table name")
	}
	if err := ValidateTable("table", table); err != nil {
		return nil, err
	}
	opts, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	t := &Table{
		name:  quoteTable(opts.Auth.Database, table),
		addrs: strings.Join(opts.Addr, ","),
	}
	if t.conn, err = ch.Open(opts); err != nil {
		return nil, fmt.Errorf("open clickhouse %s: %w", t.addrs, err)
	}
	if err := t.start(ctx, schema); err != nil {
		t.conn.Close()
		return nil, err
	}
	return t, nil
}

func (t *Table) start(ctx context.Context, schema func(Dialect) Schema) error {
	if err := t.conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping clickhouse %s: %w", t.addrs, err)
	}
	v, err := t.conn.ServerVersion()
	if err != nil {
		return fmt.Errorf("clickhouse %s server version: %w", t.addrs, err)
	}
	t.dialect = dialectOf(v)
	s := schema(t.dialect)
	t.create = "CREATE TABLE IF NOT EXISTS " + t.name + " (\n" + s.Columns + "\n) ENGINE = " + s.Engine
	return t.createTable(ctx)
}

func (t *Table) createTable(ctx context.Context) error {
	if err := t.conn.Exec(ctx, t.create); err != nil {
		return fmt.Errorf("create table %s on %s: %w", t.name, t.addrs, err)
	}
	return nil
}

// Name is the quoted table name, ready for a query.
func (t *Table) Name() string { return t.name }

// Dialect is what the server supports.
func (t *Table) Dialect() Dialect { return t.dialect }

// Query runs a SELECT with bound parameters.
func (t *Table) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	rows, err := t.conn.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query %s on %s: %w", t.name, t.addrs, err)
	}
	return rows, nil
}

// Close closes the connections.
func (t *Table) Close() error {
	if err := t.conn.Close(); err != nil {
		return fmt.Errorf("close clickhouse %s: %w", t.addrs, err)
	}
	return nil
}
