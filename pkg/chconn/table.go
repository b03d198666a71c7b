package chconn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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
	// Added are column definitions ("id String") that tables created by an
	// earlier version lack; they are added when missing. Each must also be
	// in Columns.
	Added []string
}

// Table is one table on a ClickHouse server, with the connections to it.
type Table struct {
	conn   driver.Conn
	name   string // quoted, qualified when the DSN names a database
	db, tb string // unquoted; db empty for the connection's database
	addrs  string // for errors: the DSN may hold a password
	schema func(Dialect) Schema

	// mu guards the connection state: a lazily opened table connects on
	// first use, and Connect retries until the server answered once.
	mu        sync.Mutex
	connected bool
	dialect   Dialect
	create    string
	alters    []string
}

// Open connects to the ClickHouse of dsn, learns the server version and
// creates table (name or database.name; the DSN's database qualifies a
// bare name) from schema if it is missing. It fails when the server
// cannot be reached within ctx.
func Open(ctx context.Context, dsn, table string, schema func(Dialect) Schema) (*Table, error) {
	t, err := OpenLazy(dsn, table, schema)
	if err != nil {
		return nil, err
	}
	if err := t.Connect(ctx); err != nil {
		t.conn.Close()
		return nil, err
	}
	return t, nil
}

// OpenLazy is Open without reaching the server: it checks the DSN and the
// table name, and the table connects on first use, or when Connect is
// called. A process can so start while ClickHouse is down.
func OpenLazy(dsn, table string, schema func(Dialect) Schema) (*Table, error) {
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
	db, tb := opts.Auth.Database, table
	if i := strings.IndexByte(table, '.'); i >= 0 {
		db, tb = table[:i], table[i+1:]
	}
	t := &Table{
		db:     db,
		tb:     tb,
		name:   quoteTable(opts.Auth.Database, table),
		addrs:  strings.Join(opts.Addr, ","),
		schema: schema,
	}
	if t.conn, err = ch.Open(opts); err != nil { // dials on first use
		return nil, fmt.Errorf("open clickhouse %s: %w", t.addrs, err)
	}
	return t, nil
}

// Connect reaches the server, learns its version and creates the table
// (adding missing columns) unless an earlier call did. It fails while the
// server cannot be reached within ctx; call it again to retry.
func (t *Table) Connect(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.connected {
		return nil
	}
	if err := t.conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping clickhouse %s: %w", t.addrs, err)
	}
	v, err := t.conn.ServerVersion()
	if err != nil {
		return fmt.Errorf("clickhouse %s server version: %w", t.addrs, err)
	}
	t.dialect = dialectOf(v)
	s := t.schema(t.dialect)
	t.create = "CREATE TABLE IF NOT EXISTS " + t.name + " (\n" + s.Columns + "\n) ENGINE = " + s.Engine
	t.alters = s.Added
	if err := t.createTable(ctx); err != nil {
		return err
	}
	t.connected = true
	return nil
}

// Connected reports whether Connect has succeeded.
func (t *Table) Connected() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.connected
}

func (t *Table) createTable(ctx context.Context) error {
	if err := t.conn.Exec(ctx, t.create); err != nil {
		return fmt.Errorf("create table %s on %s: %w", t.name, t.addrs, err)
	}
	return t.addColumns(ctx)
}

// addColumns adds the columns of Schema.Added the table lacks. Old servers
// (18.16) have no ADD COLUMN IF NOT EXISTS, so system.columns is asked.
func (t *Table) addColumns(ctx context.Context) error {
	for _, col := range t.alters {
		name, _, _ := strings.Cut(col, " ")
		db := "currentDatabase()"
		args := []any{t.tb, name}
		if t.db != "" {
			db = "?"
			args = append([]any{t.db}, args...)
		}
		var n uint64
		q := "SELECT count() FROM system.columns WHERE database = " + db + " AND table = ? AND name = ?"
		if err := t.conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			return fmt.Errorf("look up column %s of %s on %s: %w", name, t.name, t.addrs, err)
		}
		if n > 0 {
			continue
		}
		if err := t.conn.Exec(ctx, "ALTER TABLE "+t.name+" ADD COLUMN "+col); err != nil {
			return fmt.Errorf("add column %s to %s on %s: %w", name, t.name, t.addrs, err)
		}
	}
	return nil
}

// Name is the quoted table name, ready for a query.
func (t *Table) Name() string { return t.name }

// Dialect is what the server supports; it is known once Connect has
// succeeded (Query and Insert connect first).
func (t *Table) Dialect() Dialect {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialect
}

// QueryDialect is Query for a query that depends on the server's dialect:
// build gets the server's dialect, known only once connected.
func (t *Table) QueryDialect(ctx context.Context, build func(Dialect) (string, []any)) (driver.Rows, error) {
	if err := t.Connect(ctx); err != nil {
		return nil, err
	}
	query, args := build(t.Dialect())
	return t.Query(ctx, query, args...)
}

// Query runs a SELECT with bound parameters, connecting first if needed.
func (t *Table) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	if err := t.Connect(ctx); err != nil {
		return nil, err
	}
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

// Exec runs a statement (an ALTER, say) with bound parameters, connecting
// first if needed.
func (t *Table) Exec(ctx context.Context, query string, args ...any) error {
	if err := t.Connect(ctx); err != nil {
		return err
	}
	if err := t.conn.Exec(ctx, query, args...); err != nil {
		return fmt.Errorf("exec on %s at %s: %w", t.name, t.addrs, err)
	}
	return nil
}
