package chconn

import (
	"errors"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		name string
		dsn  string
		ok   bool
	}{
		{"native", "clickhouse://u:p@127.0.0.1:9000/db?dial_timeout=2s", true},
		{"two hosts", "clickhouse://h1:9000,h2:9000/db", true},
		{"http", "http://h:8123/db", false},
		{"no host", "clickhouse:///db", false},
		{"bad url", "clickhouse://h:9000/%zz", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDSN(tc.dsn)
			if (err == nil) != tc.ok {
				t.Fatalf("ParseDSN(%q) = %v, want ok=%v", tc.dsn, err, tc.ok)
			}
		})
	}
	// The password must not leak into errors.
	_, err := ParseDSN("clickhouse://u:secret@h:9000/%zz")
	if err == nil {
		t.Fatal("a bad DSN parsed")
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), "secret") {
			t.Fatalf("ParseDSN error %q holds the password", e)
		}
	}
}

func TestValidateTable(t *testing.T) {
	for _, tc := range []struct {
		table string
		ok    bool
	}{
		{"", true},
		{"usage", true},
		{"_usage_2", true},
		{"logs.usage_v2", true},
		{"usage`; DROP", false},
		{"my-usage", false},
		{"a.b.c", false},
		{"2usage", false},
		{".usage", false},
		{"logs.", false},
	} {
		t.Run(tc.table, func(t *testing.T) {
			err := ValidateTable("some-table-flag", tc.table)
			if (err == nil) != tc.ok {
				t.Fatalf("ValidateTable(%q) = %v, want ok=%v", tc.table, err, tc.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "some-table-flag") {
				t.Fatalf("error %q does not name the flag", err)
			}
		})
	}
}

func TestQuoteTable(t *testing.T) {
	for _, tc := range []struct {
		database, table, want string
	}{
		{"default", "usage", "`default`.`usage`"},
		{"", "usage", "`usage`"},
		{"default", "logs.usage", "`logs`.`usage`"},
		{"we`ird\\db", "usage", "`we\\`ird\\\\db`.`usage`"},
	} {
		if got := quoteTable(tc.database, tc.table); got != tc.want {
			t.Errorf("quoteTable(%q, %q) = %s, want %s", tc.database, tc.table, got, tc.want)
		}
	}
}
