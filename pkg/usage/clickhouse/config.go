package clickhouse

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// DefaultTable is where usage records go unless Config.Table says otherwise.
const DefaultTable = "recollect_usage"

// Config selects the ClickHouse that keeps the usage log.
type Config struct {
	// DSN is clickhouse://[user:password@]host:9000[,host2:9000]/database?options;
	// empty means usage stays in the local log of the data dir.
	DSN string
	// Table is the table name, "name" in the DSN's database or
	// "database.name"; it is created if missing.
	Table string
}

// RegisterFlags registers --<prefix>clickhouse-dsn and
// --<prefix>clickhouse-usage-table.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.DSN, prefix+"clickhouse-dsn", c.DSN,
		"ClickHouse for the model-usage log (native protocol), as clickhouse://[user:password@]host:9000/database "+
			"(query options such as dial_timeout=5s, secure=true); empty keeps the log in usage.jsonl in the data dir")
	fs.StringVar(&c.Table, prefix+"clickhouse-usage-table", DefaultTable,
		"ClickHouse table of the model-usage log, as name or database.name; created if missing")
}

// Validate checks the DSN parses as a native-protocol DSN and the table
// name is a plain identifier. An empty DSN is valid (local log).
func (c *Config) Validate() error {
	var errs []error
	if c.DSN != "" {
		if _, err := chconn.ParseDSN(c.DSN); err != nil {
			errs = append(errs, err)
		}
	}
	if err := chconn.ValidateTable("clickhouse-usage-table", c.Table); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (c Config) table() string {
	if c.Table == "" {
		return DefaultTable
	}
	return c.Table
}
