package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/usagetest"
)

// externalDSNEnv points the suite also at a ClickHouse of your choice, e.g.
// a current release: the Debian server is 18.16, so only this covers the
// DateTime64/LowCardinality schema.
const externalDSNEnv = "RECOLLECT_TEST_CLICKHOUSE_DSN"

// TestClickHouse shares one server between its subtests: starting one
// takes a fraction of a second, stopping one up to a second.
func TestClickHouse(t *testing.T) {
	srv := testserver.StartClickHouse(t)
	var tables atomic.Int64
	table := func() string { return "usage_" + strconv.FormatInt(tables.Add(1), 10) }

	t.Run("Acceptance", func(t *testing.T) {
		usagetest.Run(t, func(t *testing.T) (usage.Writer, usage.Reader) {
			s := open(t, Config{DSN: srv.DSN(), Table: table()})
			return s, s
		})
	})
	t.Run("OpenTwice", func(t *testing.T) {
		cfg := Config{DSN: srv.DSN(), Table: table()}
		first := open(t, cfg)
		writeOne(t, first, 5)
		second := open(t, cfg) // CREATE TABLE IF NOT EXISTS keeps the data
		wantCalls(t, second, usage.Query{}, 1, 5)
	})
	t.Run("DefaultTableAndQualifiedTable", func(t *testing.T) {
		exec(t, srv.DSN(), "CREATE DATABASE IF NOT EXISTS other")
		for _, cfg := range []Config{
			{DSN: srv.DSN()},
			{DSN: srv.DSN(), Table: "other.usage"},
		} {
			writeOne(t, open(t, cfg), 1)
		}
		wantRows(t, srv.DSN(), "SELECT count() FROM default.recollect_usage", 1)
		wantRows(t, srv.DSN(), "SELECT count() FROM other.usage", 1)
	})
	t.Run("TableRecreatedAfterDrop", func(t *testing.T) {
		name := table()
		s := open(t, Config{DSN: srv.DSN(), Table: name})
		writeOne(t, s, 1)
		exec(t, srv.DSN(), "DROP TABLE "+name)
		writeOne(t, s, 2)
		wantCalls(t, s, usage.Query{}, 1, 2)
	})
	t.Run("BufferedSurvivesOutage", func(t *testing.T) {
		testOutage(t, srv, open(t, Config{DSN: srv.DSN(), Table: table()}))
	})

	if dsn := os.Getenv(externalDSNEnv); dsn != "" {
		t.Run("External", func(t *testing.T) {
			prefix := fmt.Sprintf("recollect_usagetest_%d_%d_", os.Getpid(), time.Now().UnixNano())
			usagetest.Run(t, func(t *testing.T) (usage.Writer, usage.Reader) {
				name := prefix + strconv.FormatInt(tables.Add(1), 10)
				t.Cleanup(func() { exec(t, dsn, "DROP TABLE IF EXISTS "+name) })
				s := open(t, Config{DSN: dsn, Table: name})
				return s, s
			})
		})
	} else {
		t.Logf("%s not set: the DateTime64 schema of ClickHouse >= 20.1 is not exercised", externalDSNEnv)
	}
}

// testOutage stops the server under a Buffered sink: recording goes on,
// nothing blocks or is lost, and once the server is back every record lands.
func testOutage(t *testing.T, srv *testserver.ClickHouseServer, s *Store) {
	b := usage.NewBuffered(s,
		usage.WithFlushInterval(10*time.Millisecond),
		usage.WithRetryBackoff(10*time.Millisecond, 200*time.Millisecond),
		usage.WithWriteTimeout(5*time.Second))
	t.Cleanup(func() { _ = b.Close() })
	ctx := context.Background()
	recordN := func(n int) {
		for range n {
			b.Record(ctx, usage.Record{Tenant: "acme", Component: "extractor", Model: "m", InputTokens: 1})
		}
	}

	recordN(100)
	if err := b.Flush(ctx); err != nil {
		t.Fatalf("flush while up: %v", err)
	}
	srv.Stop(t)
	recordN(100)
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Flush(fctx); err == nil {
		t.Fatalf("flush while the server is down succeeded")
	}
	failed := b.FailedWrites()
	testserver.WaitFor(t, 10*time.Second, func() error {
		if b.FailedWrites() < failed+2 {
			return fmt.Errorf("%d failed writes, want the loop to retry", b.FailedWrites())
		}
		return nil
	})
	if b.Pending() != 100 || b.Written() != 100 || b.Dropped() != 0 {
		t.Fatalf("while down: pending %d written %d dropped %d, want 100 100 0", b.Pending(), b.Written(), b.Dropped())
	}

	srv.Start(t)
	testserver.WaitFor(t, 30*time.Second, func() error {
		if b.Written() != 200 {
			return fmt.Errorf("written %d of 200", b.Written())
		}
		return nil
	})
	wantCalls(t, s, usage.Query{Tenant: "acme"}, 200, 200)
}

func TestOpenUnreachable(t *testing.T) {
	dsn := fmt.Sprintf("clickhouse://127.0.0.1:%d/default?dial_timeout=1s", testserver.FreePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, Config{DSN: dsn})
	if err == nil {
		s.Close()
		t.Fatalf("open of a closed port succeeded")
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"empty is the local log", Config{}, true},
		{"dsn", Config{DSN: "clickhouse://u:p@127.0.0.1:9000/db?dial_timeout=2s"}, true},
		{"qualified table", Config{DSN: "clickhouse://h:9000/db", Table: "logs.usage_v2"}, true},
		{"http dsn", Config{DSN: "http://h:8123/db"}, false},
		{"no host", Config{DSN: "clickhouse:///db"}, false},
		{"bad url", Config{DSN: "clickhouse://h:9000/%zz"}, false},
		{"table with quote", Config{Table: "usage`; DROP"}, false},
		{"table with dash", Config{Table: "my-usage"}, false},
		{"three parts", Config{Table: "a.b.c"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
	// The password must not leak into errors.
	err := (&Config{DSN: "clickhouse://u:secret@h:9000/%zz"}).Validate()
	if err == nil || containsSecret(err) {
		t.Fatalf("Validate() = %v, want an error without the password", err)
	}
}

func containsSecret(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if s := e.Error(); strings.Contains(s, "secret") {
			return true
		}
	}
	return false
}

func open(t *testing.T, cfg Config) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func writeOne(t *testing.T, s *Store, tokens int64) {
	t.Helper()
	r := usage.Record{Time: time.Now(), Tenant: "acme", Component: "query", Model: "m", InputTokens: tokens, Outcome: usage.OutcomeOK}
	if err := s.Write(context.Background(), []usage.Record{r}); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func wantCalls(t *testing.T, s *Store, q usage.Query, calls, tokens int64) {
	t.Helper()
	got, err := s.Totals(context.Background(), q)
	if err != nil {
		t.Fatalf("totals: %v", err)
	}
	if len(got) != 1 || got[0].Calls != calls || got[0].InputTokens != tokens {
		t.Fatalf("totals = %+v, want one with %d calls and %d tokens", got, calls, tokens)
	}
}

func exec(t *testing.T, dsn, query string) {
	t.Helper()
	conn := rawConn(t, dsn)
	if err := conn.Exec(context.Background(), query); err != nil {
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
