package clickhouse

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/chconn/chconntest"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/usagetest"
)

// TestClickHouse shares one server between its subtests: starting one
// takes a fraction of a second, stopping one up to a second.
func TestClickHouse(t *testing.T) {
	srv := testserver.StartClickHouse(t)
	dsn := srv.DSN()

	t.Run("Acceptance", func(t *testing.T) { acceptance(t, dsn) })
	t.Run("OpenTwice", func(t *testing.T) {
		cfg := Config{DSN: dsn, Table: table(t, dsn)}
		first := open(t, cfg)
		writeOne(t, first, 5)
		second := open(t, cfg) // CREATE TABLE IF NOT EXISTS keeps the data
		wantCalls(t, second, usage.Query{}, 1, 5)
	})
	t.Run("DefaultTableAndQualifiedTable", func(t *testing.T) {
		chconntest.Exec(t, dsn, "CREATE DATABASE IF NOT EXISTS other")
		for _, cfg := range []Config{
			{DSN: dsn},
			{DSN: dsn, Table: "other.usage"},
		} {
			writeOne(t, open(t, cfg), 1)
		}
		chconntest.WantRows(t, dsn, "SELECT count() FROM default.recollect_usage", 1)
		chconntest.WantRows(t, dsn, "SELECT count() FROM other.usage", 1)
	})
	t.Run("BufferedSurvivesOutage", func(t *testing.T) {
		testOutage(t, srv, open(t, Config{DSN: dsn, Table: table(t, dsn)}))
	})

	if ext := chconntest.ExternalDSN(t); ext != "" {
		t.Run("External", func(t *testing.T) { acceptance(t, ext) })
	}
}

func acceptance(t *testing.T, dsn string) {
	usagetest.Run(t, func(t *testing.T) (usage.Writer, usage.Reader) {
		s := open(t, Config{DSN: dsn, Table: table(t, dsn)})
		return s, s
	})
}

// table is a fresh table name, dropped when the test ends.
func table(t *testing.T, dsn string) string {
	return chconntest.TempTable(t, dsn, "recollect_usagetest_")
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
