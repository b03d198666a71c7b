// Package chconntest has what the test suites of the ClickHouse tables
// share: statements and counts on a raw connection, and the optional
// external server that covers the schema of ClickHouse from 20.1.
package chconntest

import (
	"context"
	"os"
	"strings"
	"testing"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/google/uuid"
)

// ExternalDSNEnv points the suites also at a ClickHouse of your choice,
// e.g. a current release: the Debian server is 18.16, so only this covers
// the DateTime64/LowCardinality schema.
const ExternalDSNEnv = "RECOLLECT_TEST_CLICKHOUSE_DSN"

// ExternalDSN is the DSN of ExternalDSNEnv, or "" after noting in the test
// log that the schema of newer servers goes unexercised.
func ExternalDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(ExternalDSNEnv)
	if dsn == "" {
		t.Logf("%s not set: the DateTime64 schema of ClickHouse >= 20.1 is not exercised", ExternalDSNEnv)
	}
	return dsn
}

// TempTable is a fresh table name beginning with prefix, dropped from the
// ClickHouse of dsn when the test ends: for a server the test does not own.
func TempTable(t testing.TB, dsn, prefix string) string {
	t.Helper()
	name := prefix + strings.ReplaceAll(uuid.NewString(), "-", "")
	t.Cleanup(func() { Exec(t, dsn, "DROP TABLE IF EXISTS "+name) })
	return name
}

// Exec runs a statement on its own connection and fails the test on error.
func Exec(t testing.TB, dsn, query string) {
	t.Helper()
	if err := Conn(t, dsn).Exec(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// WantRows fails the test unless query, a SELECT count(), gives want.
func WantRows(t testing.TB, dsn, query string, want uint64) {
	t.Helper()
	var n uint64
	if err := Conn(t, dsn).QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if n != want {
		t.Fatalf("%s = %d, want %d", query, n, want)
	}
}

// Conn opens a connection that closes when the test ends.
func Conn(t testing.TB, dsn string) ch.Conn {
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
