package clickhouse

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auditlog/auditlogtest"
	"github.com/recollect-dev/recollect/pkg/chconn/chconntest"
)

// TestClickHouse shares one server between its subtests; each gets its
// own table.
func TestClickHouse(t *testing.T) {
	dsn := testserver.ClickHouse(t)

	t.Run("Acceptance", func(t *testing.T) { acceptance(t, dsn) })
	t.Run("OpenTwice", func(t *testing.T) {
		cfg := Config{Table: table(t, dsn)}
		writeOne(t, open(t, dsn, cfg), "first")
		second := open(t, dsn, cfg) // CREATE TABLE IF NOT EXISTS keeps the data
		wantReasons(t, second, "first")
	})
	t.Run("DefaultTableAndQualifiedTable", func(t *testing.T) {
		chconntest.Exec(t, dsn, "CREATE DATABASE IF NOT EXISTS other")
		for _, cfg := range []Config{{}, {Table: "other.audit"}} {
			writeOne(t, open(t, dsn, cfg), "x")
		}
		chconntest.WantRows(t, dsn, "SELECT count() FROM default.recollect_audit", 1)
		chconntest.WantRows(t, dsn, "SELECT count() FROM other.audit", 1)
	})

	if ext := chconntest.ExternalDSN(t); ext != "" {
		t.Run("External", func(t *testing.T) { acceptance(t, ext) })
	}
}

func acceptance(t *testing.T, dsn string) {
	auditlogtest.Run(t, func(t *testing.T) auditlog.Log {
		return open(t, dsn, Config{Table: table(t, dsn)})
	})
}

// table is a fresh table name, dropped when the test ends.
func table(t *testing.T, dsn string) string {
	return chconntest.TempTable(t, dsn, "recollect_audittest_")
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
