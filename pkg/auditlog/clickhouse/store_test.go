package clickhouse

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auditlog/auditlogtest"
)

// externalDSNEnv points the suite also at a ClickHouse of your choice, e.g.
// a current release: the Debian server is 18.16, so only this covers the
// DateTime64/LowCardinality schema.
const externalDSNEnv = "RECOLLECT_TEST_CLICKHOUSE_DSN"

// TestClickHouse shares one server between its subtests; each gets its
// own table.
func TestClickHouse(t *testing.T) {
	srv := testserver.StartClickHouse(t)
	var tables atomic.Int64
	table := func() string { return "audit_" + strconv.FormatInt(tables.Add(1), 10) }

	t.Run("Acceptance", func(t *testing.T) {
		auditlogtest.Run(t, func(t *testing.T) auditlog.Log {
			return open(t, srv.DSN(), Config{Table: table()})
		})
	})
	t.Run("OpenTwice", func(t *testing.T) {
		cfg := Config{Table: table()}
		writeOne(t, open(t, srv.DSN(), cfg), "first")
		second := open(t, srv.DSN(), cfg) // CREATE TABLE IF NOT EXISTS keeps the data
		wantReasons(t, second, "first")
	})
	t.Run("DefaultTableAndQualifiedTable", func(t *testing.T) {
		exec(t, srv.DSN(), "CREATE DATABASE IF NOT EXISTS other")
		for _, cfg := range []Config{{}, {Table: "other.audit"}} {
			writeOne(t, open(t, srv.DSN(), cfg), "x")
		}
		wantRows(t, srv.DSN(), "SELECT count() FROM default.recollect_audit", 1)
		wantRows(t, srv.DSN(), "SELECT count() FROM other.audit", 1)
	})
	t.Run("TableRecreatedAfterDrop", func(t *testing.T) {
		name := table()
		s := open(t, srv.DSN(), Config{Table: name})
		writeOne(t, s, "before the drop")
		exec(t, srv.DSN(), "DROP TABLE "+name)
		writeOne(t, s, "after the drop")
		wantReasons(t, s, "after the drop")
	})
	t.Run("ColumnAddedByAnOperator", func(t *testing.T) {
		// The explicit column list keeps inserts working when the table
		// has more columns than this version writes.
		name := table()
		s := open(t, srv.DSN(), Config{Table: name})
		exec(t, srv.DSN(), "ALTER TABLE "+name+" ADD COLUMN note String DEFAULT 'n/a'")
		writeOne(t, s, "with an extra column")
		wantReasons(t, s, "with an extra column")
	})

	if dsn := os.Getenv(externalDSNEnv); dsn != "" {
		t.Run("External", func(t *testing.T) {
			prefix := fmt.Sprintf("recollect_audittest_%d_%d_", os.Getpid(), time.Now().UnixNano())
			auditlogtest.Run(t, func(t *testing.T) auditlog.Log {
				name := prefix + strconv.FormatInt(tables.Add(1), 10)
				t.Cleanup(func() { exec(t, dsn, "DROP TABLE IF EXISTS "+name) })
				return open(t, dsn, Config{Table: name})
			})
		})
	} else {
		t.Logf("%s not set: the DateTime64 schema of ClickHouse >= 20.1 is not exercised", externalDSNEnv)
	}
}

func TestOpenUnreachable(t *testing.T) {
	dsn := fmt.Sprintf("clickhouse://127.0.0.1:%d/default?dial_timeout=1s", testserver.FreePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn, Config{})
	if err == nil {
		s.Close()
		t.Fatalf("open of a closed port succeeded")
	}
}

func TestOpenRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  string
		cfg  Config
	}{
		{"empty dsn", "", Config{}},
		{"http dsn", "http://127.0.0.1:8123/db", Config{}},
		{"table with quote", "clickhouse://127.0.0.1:9000/db", Config{Table: "audit`; DROP"}},
		{"table with dash", "clickhouse://127.0.0.1:9000/db", Config{Table: "my-audit"}},
		{"three parts", "clickhouse://127.0.0.1:9000/db", Config{Table: "a.b.c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(context.Background(), tc.dsn, tc.cfg)
			if err == nil {
				s.Close()
				t.Fatal("open succeeded")
			}
		})
	}
	if err := (&Config{Table: "logs.audit_v2"}).Validate(); err != nil {
		t.Fatalf("a qualified table name was refused: %v", err)
	}
}

func open(t *testing.T, dsn string, cfg Config) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func writeOne(t *testing.T, s *Store, reason string) {
	t.Helper()
	e := auditlog.Entry{Time: time.Now(), Tenant: "acme", Phase: "gate", Op: "promote", Decider: auditlog.DeciderRule, Reason: reason}
	if err := s.Write(context.Background(), []auditlog.Entry{e}); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func wantReasons(t *testing.T, s *Store, want ...string) {
	t.Helper()
	got, err := s.Read(context.Background(), auditlog.Query{Tenant: "acme"})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	have := make([]string, len(got))
	for i, e := range got {
		have[i] = e.Reason
	}
	if fmt.Sprint(have) != fmt.Sprint(want) {
		t.Fatalf("read %q, want %q", have, want)
	}
}

func exec(t *testing.T, dsn, query string) {
	t.Helper()
	if err := rawConn(t, dsn).Exec(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func wantRows(t *testing.T, dsn, query string, want uint64) {
	t.Helper()
	var n uint64
	if err := rawConn(t, dsn).QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if n != want {
		t.Fatalf("%s = %d, want %d", query, n, want)
	}
}

func rawConn(t *testing.T, dsn string) ch.Conn {
	t.Helper()
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("parse dsn: %v", err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		t.Fatalf("open clickhouse: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
