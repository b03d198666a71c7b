package clickhouse

import (
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// DefaultTable is where audit entries go unless Config.Table says otherwise.
const DefaultTable = "recollect_audit"

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
	return chconn.ValidateTable("clickhouse-audit-table", c.Table)
}

func (c Config) table() string {
	if c.Table == "" {
		return DefaultTable
	}
	return c.Table
}
