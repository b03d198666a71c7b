// Package chconn connects to ClickHouse over the native protocol for the
// tables Recollect keeps there (the model usage log, the consolidation
// audit log): it checks the DSN and the table name, learns what the
// server supports, creates the table if it is missing and inserts in
// batches with an explicit column list. Each table's schema, columns and
// queries stay in its own package.
package chconn

import (
	"fmt"
	"regexp"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// identifier is a table name, optionally qualified by its database; no
// quoting is needed (or allowed) for either part.
var identifier = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$`)

// ParseDSN accepts native-protocol DSNs only
// (clickhouse://[user:password@]host:9000[,host2:9000]/database?options):
// that is what is tested, and batches over HTTP behave differently. The
// driver already keeps any password out of its parse errors.
func ParseDSN(dsn string) (*ch.Options, error) {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	if opts.Protocol != ch.Native {
		return nil, fmt.Errorf("clickhouse dsn: want the native protocol (clickhouse://host:9000/db), got %s", opts.Protocol)
	}
	return opts, nil
}

// ValidateTable checks that table, the value of the flag named flag, is
// empty (the caller's default) or a plain name or database.name.
func ValidateTable(flag, table string) error {
	if table != "" && !identifier.MatchString(table) {
		return fmt.Errorf("%s %q: want name or database.name of letters, digits and _", flag, table)
	}
	return nil
}

// quoteTable backquotes each part of the table name: the table is a
// validated identifier, the database comes from the DSN as is.
func quoteTable(database, table string) string {
	parts := strings.Split(table, ".")
	if len(parts) == 1 && database != "" {
		parts = []string{database, table}
	}
	esc := strings.NewReplacer("\\", "\\\\", "`", "\\`")
	for i, p := range parts {
		parts[i] = "`" + esc.Replace(p) + "`"
	}
	return strings.Join(parts, ".")
}
