package clickhouse

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/chconn"
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
	t.Run("TableWithoutIDGetsIt", func(t *testing.T) { testOldTable(t, dsn) })
	t.Run("SpoolReplayedExactlyOnce", func(t *testing.T) { testSpoolReplay(t, srv, dsn) })
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

// testOldTable: a table created before records had ids gets the column;
// its old rows count each, new ones once per id.
func testOldTable(t *testing.T, dsn string) {
	name := table(t, dsn)
	oldSchema := func(chconn.Dialect) chconn.Schema {
		return chconn.Schema{Columns: `time DateTime('UTC'), tenant String, component String, provider String,
	model String, input_tokens Int64, output_tokens Int64, duration_ns Int64, outcome String, trace_id String`,
			Engine: "MergeTree PARTITION BY toYYYYMM(time) ORDER BY (tenant, time)"}
	}
	ctx := context.Background()
	old, err := chconn.Open(ctx, dsn, name, oldSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	err = old.Insert(ctx, "time, tenant, component, provider, model, input_tokens, output_tokens, duration_ns, outcome, trace_id", 2,
		func(int) []any {
			return []any{time.Now(), "acme", "query", "p", "m", int64(2), int64(0), int64(0), "ok", ""}
		})
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, Config{DSN: dsn, Table: name})
	r := usage.Record{Time: time.Now(), ID: "x1", Tenant: "acme", Component: "query", Model: "m", InputTokens: 3, Outcome: usage.OutcomeOK}
	for range 2 {
		if err := s.Write(context.Background(), []usage.Record{r}); err != nil {
			t.Fatalf("write into the old table: %v", err)
		}
	}
	wantCalls(t, s, usage.Query{Tenant: "acme"}, 3, 7)
}

// testSpoolReplay: a process records while ClickHouse is down and is
// killed (its buffer abandoned without Close); the next start, with
// ClickHouse back, writes every spooled record, and each counts once even
// when a batch reaches the server twice (a crash after the insert, before
// the spool let go of it).
func testSpoolReplay(t *testing.T, srv *testserver.ClickHouseServer, dsn string) {
	dir := t.TempDir()
	cfg := Config{DSN: dsn, Table: table(t, dsn)}
	first, err := OpenLazy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })
	srv.Stop(t)
	killed, err := usage.NewSpooled(first, dir,
		usage.WithFlushInterval(10*time.Millisecond),
		usage.WithRetryBackoff(10*time.Millisecond, 50*time.Millisecond),
		usage.WithWriteTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 40 {
		killed.Record(ctx, usage.Record{Tenant: "acme", Component: "extractor", Model: "m", InputTokens: 1})
	}
	testserver.WaitFor(t, 10*time.Second, func() error {
		if killed.FailedWrites() < 2 {
			return fmt.Errorf("%d failed writes, want the loop to retry", killed.FailedWrites())
		}
		return nil
	})
	killed.Abandon() // kill -9: no final write, the spool left as it is
	first.Close()
	srv.Start(t)

	second := open(t, cfg)
	b, err := usage.NewSpooled(second, dir, usage.WithFlushInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if b.Replayed() != 40 {
		t.Fatalf("replayed %d, want 40", b.Replayed())
	}
	testserver.WaitFor(t, 30*time.Second, func() error {
		if b.Written() != 40 {
			return fmt.Errorf("written %d of 40", b.Written())
		}
		return nil
	})
	wantCalls(t, second, usage.Query{Tenant: "acme"}, 40, 40)

	// The same records once more, as after a kill between the insert and
	// the spool's release: still 40 calls, and merged away to 40 rows.
	rows := readAll(t, second)
	if err := second.Write(ctx, rows); err != nil {
		t.Fatalf("write again: %v", err)
	}
	wantCalls(t, second, usage.Query{Tenant: "acme"}, 40, 40)
	chconntest.Exec(t, dsn, "OPTIMIZE TABLE "+cfg.Table+" FINAL")
	chconntest.WantRows(t, dsn, "SELECT count() FROM "+cfg.Table, 40)
}

// readAll reads back the rows of s's table as records.
func readAll(t *testing.T, s *Store) []usage.Record {
	t.Helper()
	rows, err := s.t.Query(context.Background(), "SELECT id, time, tenant, component, model, input_tokens, outcome FROM "+s.t.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []usage.Record
	for rows.Next() {
		var r usage.Record
		if err := rows.Scan(&r.ID, &r.Time, &r.Tenant, &r.Component, &r.Model, &r.InputTokens, &r.Outcome); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
