package testserver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
)

func TestClickHouse(t *testing.T) {
	start := time.Now()
	srv := StartClickHouse(t)
	t.Logf("clickhouse-server ready in %s", time.Since(start))

	conn := openClickHouse(t, srv.DSN())
	ctx := context.Background()

	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		t.Fatalf("select version: %v", err)
	}
	t.Logf("clickhouse-server version %s", version)

	// The server must accept DDL and batched inserts with a column list,
	// which is what the usage store does.
	if err := conn.Exec(ctx, "CREATE TABLE t (id UInt64, name String) ENGINE = MergeTree ORDER BY id"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO t (id, name)")
	if err != nil {
		t.Fatalf("prepare batch: %v", err)
	}
	for i := range 3 {
		if err := batch.Append(uint64(i), "x"); err != nil {
			t.Fatalf("append: %v", err)
		}
	}
	if err := batch.Send(); err != nil {
		t.Fatalf("send batch: %v", err)
	}
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM t").Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	if n != 3 {
		t.Fatalf("count = %d, want 3", n)
	}

	t.Run("stop and start keep data", func(t *testing.T) {
		srv.Stop(t)
		if c, err := net.DialTimeout("tcp", srv.Addr(), time.Second); err == nil {
			c.Close()
			t.Fatalf("%s still accepts connections after Stop", srv.Addr())
		}
		srv.Start(t)
		conn := openClickHouse(t, srv.DSN())
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM t").Scan(&n); err != nil {
			t.Fatalf("count after restart: %v", err)
		}
		if n != 3 {
			t.Fatalf("count after restart = %d, want 3", n)
		}
	})

	t.Run("loopback only", func(t *testing.T) {
		// listen_host is 127.0.0.1, so other loopback addresses are refused.
		if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.2", portOf(t, srv.Addr())), time.Second); err == nil {
			c.Close()
			t.Fatalf("server accepts connections on 127.0.0.2")
		}
	})
}

func TestClickHouseServersAreIndependent(t *testing.T) {
	a, b := ClickHouse(t), ClickHouse(t)
	if a == b {
		t.Fatalf("two servers share DSN %s", a)
	}
	ctx := context.Background()
	if err := openClickHouse(t, a).Exec(ctx, "CREATE TABLE only_a (x UInt8) ENGINE = Memory"); err != nil {
		t.Fatalf("create table on a: %v", err)
	}
	var n uint64
	if err := openClickHouse(t, b).QueryRow(ctx, "SELECT count() FROM system.tables WHERE name = 'only_a'").Scan(&n); err != nil {
		t.Fatalf("query b: %v", err)
	}
	if n != 0 {
		t.Fatalf("table created on %s is visible on %s", a, b)
	}
}

// BenchmarkClickHouseStart measures start-up until the first ping; the
// stop is not timed.
func BenchmarkClickHouseStart(b *testing.B) {
	for range b.N {
		srv := StartClickHouse(b)
		b.StopTimer()
		srv.Stop(b)
		b.StartTimer()
	}
}

func openClickHouse(t testing.TB, dsn string) clickhouse.Conn {
	t.Helper()
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("parse dsn %s: %v", dsn, err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func portOf(t testing.TB, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("split %s: %v", addr, err)
	}
	return port
}

// TestClickHousePortTaken: a server that cannot bind exits, and start must
// report that at once so StartClickHouse can retry on other ports.
func TestClickHousePortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	s := &ClickHouseServer{
		bin:      RequireBinary(t, clickHouseBinary, clickHouseInstallHint),
		dir:      t.TempDir(),
		tcpPort:  l.Addr().(*net.TCPAddr).Port,
		httpPort: FreePort(t),
	}
	start := time.Now()
	err = s.start()
	if err == nil {
		_ = s.stop()
		t.Fatalf("start on a taken port succeeded")
	}
	if !strings.Contains(err.Error(), "exited") {
		t.Fatalf("start on a taken port = %v, want the exit reported", err)
	}
	t.Logf("gave up after %s: %v", time.Since(start), err)
}
