package chconn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/chconn/chconntest"
)

// testColumns and testSchema are a small table of the kinds of columns
// the real tables have.
const testColumns = "time, name, n"

func testSchema(d Dialect) Schema {
	return Schema{
		Columns: fmt.Sprintf("\ttime %s,\n\tname %s,\n\tn    Int64", d.TimeType(), d.NameType()),
		Engine:  "MergeTree\nORDER BY (name, time)",
	}
}

// TestTable shares one server between its subtests; each gets its own
// table.
func TestTable(t *testing.T) {
	srv := testserver.StartClickHouse(t)
	var tables atomic.Int64
	t.Run("Local", func(t *testing.T) {
		testTable(t, srv.DSN(), func(t *testing.T) string { return "t_" + strconv.FormatInt(tables.Add(1), 10) })
	})
	t.Run("QualifiedTable", func(t *testing.T) {
		chconntest.Exec(t, srv.DSN(), "CREATE DATABASE IF NOT EXISTS other")
		insert(t, open(t, srv.DSN(), "other.t"), 2)
		insert(t, open(t, srv.DSN(), "t_default"), 3)
		chconntest.WantRows(t, srv.DSN(), "SELECT count() FROM other.t", 2)
		chconntest.WantRows(t, srv.DSN(), "SELECT count() FROM default.t_default", 3)
	})
	if dsn := chconntest.ExternalDSN(t); dsn != "" {
		t.Run("External", func(t *testing.T) {
			testTable(t, dsn, func(t *testing.T) string { return chconntest.TempTable(t, dsn, "recollect_chconntest_") })
		})
	}
}

func testTable(t *testing.T, dsn string, table func(t *testing.T) string) {
	t.Run("SchemaOfTheDialect", func(t *testing.T) {
		name := table(t)
		tb := open(t, dsn, name)
		var typ string
		q := "SELECT type FROM system.columns WHERE database = currentDatabase() AND table = ? AND name = 'time'"
		if err := chconntest.Conn(t, dsn).QueryRow(context.Background(), q, name).Scan(&typ); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if want := tb.Dialect().TimeType(); typ != want {
			t.Fatalf("time column is %s, want %s (modern dialect %v)", typ, want, tb.Dialect().Modern())
		}
	})
	t.Run("OpenTwiceKeepsData", func(t *testing.T) {
		name := table(t)
		insert(t, open(t, dsn, name), 2)
		insert(t, open(t, dsn, name), 1) // CREATE TABLE IF NOT EXISTS keeps the data
		chconntest.WantRows(t, dsn, "SELECT count() FROM "+name, 3)
	})
	t.Run("RecreatedAfterDrop", func(t *testing.T) {
		name := table(t)
		tb := open(t, dsn, name)
		insert(t, tb, 1)
		chconntest.Exec(t, dsn, "DROP TABLE "+name)
		insert(t, tb, 2)
		chconntest.WantRows(t, dsn, "SELECT count() FROM "+name, 2)
	})
	t.Run("ColumnAddedByAnOperator", func(t *testing.T) {
		// The explicit column list keeps inserts working when the table
		// has more columns than the writer knows.
		name := table(t)
		tb := open(t, dsn, name)
		chconntest.Exec(t, dsn, "ALTER TABLE "+name+" ADD COLUMN note String DEFAULT 'n/a'")
		insert(t, tb, 1)
		chconntest.WantRows(t, dsn, "SELECT count() FROM "+name+" WHERE note = 'n/a'", 1)
	})
	t.Run("NoRows", func(t *testing.T) {
		tb := open(t, dsn, table(t))
		err := tb.Insert(context.Background(), testColumns, 0, func(int) []any {
			t.Fatal("row asked for in an insert of none")
			return nil
		})
		if err != nil {
			t.Fatalf("insert of no rows: %v", err)
		}
	})
	t.Run("TimeBounds", func(t *testing.T) {
		tb := open(t, dsn, table(t))
		at := time.Date(2024, 5, 6, 7, 8, 9, 250_000_000, time.UTC)
		err := tb.Insert(context.Background(), testColumns, 1, func(int) []any { return []any{at, "x", int64(1)} })
		if err != nil {
			t.Fatalf("insert: %v", err)
		}
		d := tb.Dialect()
		for _, tc := range []struct {
			where string
			bound time.Time
			want  uint64
		}{
			{"time >= ", at, 1},
			{"time < ", at, 0},
			{"time < ", at.Add(time.Second), 1},
			{"time >= ", at.Add(time.Second), 0},
		} {
			if got := count(t, tb, tc.where+d.TimeArg(), d.TimeLiteral(tc.bound)); got != tc.want {
				t.Errorf("%s%s: %d rows, want %d", tc.where, d.TimeLiteral(tc.bound), got, tc.want)
			}
		}
	})
	t.Run("QueryErrorNamesTheTable", func(t *testing.T) {
		tb := open(t, dsn, table(t))
		_, err := tb.Query(context.Background(), "SELECT no_such_column FROM "+tb.Name())
		if err == nil || !strings.Contains(err.Error(), tb.Name()) {
			t.Fatalf("query error %v, want one naming %s", err, tb.Name())
		}
	})
}

func TestOpenUnreachable(t *testing.T) {
	dsn := fmt.Sprintf("clickhouse://127.0.0.1:%d/default?dial_timeout=1s", testserver.FreePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := Open(ctx, dsn, "t", testSchema)
	if err == nil {
		tb.Close()
		t.Fatalf("open of a closed port succeeded")
	}
}

func TestOpenRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name, dsn, table string
	}{
		{"empty dsn", "", "t"},
		{"http dsn", "http://127.0.0.1:8123/db", "t"},
		{"empty table", "clickhouse://127.0.0.1:9000/db", ""},
		{"table with quote", "clickhouse://127.0.0.1:9000/db", "t`; DROP"},
		{"three parts", "clickhouse://127.0.0.1:9000/db", "a.b.c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Open(context.Background(), tc.dsn, tc.table, testSchema)
			if err == nil {
				tb.Close()
				t.Fatal("open succeeded")
			}
		})
	}
}

func open(t *testing.T, dsn, table string) *Table {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := Open(ctx, dsn, table, testSchema)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// insert writes n rows as one batch.
func insert(t *testing.T, tb *Table, n int) {
	t.Helper()
	now := time.Now()
	err := tb.Insert(context.Background(), testColumns, n, func(i int) []any {
		return []any{now, "row", int64(i)}
	})
	if err != nil {
		t.Fatalf("insert %d rows: %v", n, err)
	}
}

func count(t *testing.T, tb *Table, where string, args ...any) uint64 {
	t.Helper()
	rows, err := tb.Query(context.Background(), "SELECT count() FROM "+tb.Name()+" WHERE "+where, args...)
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	defer rows.Close()
	var n uint64
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatalf("scan count: %v", err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}
