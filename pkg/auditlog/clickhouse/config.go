package clickhouse

import (
	"fmt"
	"regexp"

	"github.com/spf13/pflag"
)

// DefaultTable is where audit entries go unless Config.Table says otherwise.
const DefaultTable = "recollect_audit"

// identifier is a table name, optionally qualified by its database; no
// quoting is needed (or allowed) for either part.
var identifier = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$`)

// Config names the audit table. The server is the one of --clickhouse-dsn,
// shared with the usage log.
type Config struct {
	// Table is "name" in the DSN's database or "database.name"; it is
	// created if missing.
	Table string
}

// RegisterFlags registers --<prefix>clickhouse-audit-table.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.Table, prefix+"clickhouse-audit-table", DefaultTable,
		"ClickHouse table of the consolidation audit log (with --clickhouse-dsn), as name or database.name; created if missing")
}

// Validate checks the table name is a plain identifier.
func (c *Config) Validate() error {
	if c.Table != "" && !identifier.MatchString(c.Table) {
		return fmt.Errorf("clickhouse-audit-table %q: want name or database.name of letters, digits and _", c.Table)
	}
	return nil
}

func (c Config) table() string {
	if c.Table == "" {
		return DefaultTable
	}
	return c.Table
}
