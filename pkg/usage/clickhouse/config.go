package clickhouse

import (
	"errors"
	"fmt"
	"regexp"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/spf13/pflag"
)

// DefaultTable is where usage records go unless Config.Table says otherwise.
const DefaultTable = "recollect_usage"

// identifier is a table name, optionally qualified by its database; no
// quoting is needed (or allowed) for either part.
var identifier = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$`)

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
		if _, err := parseDSN(c.DSN); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Table != "" && !identifier.MatchString(c.Table) {
		errs = append(errs, fmt.Errorf("clickhouse-usage-table %q: want name or database.name of letters, digits and _", c.Table))
	}
	return errors.Join(errs...)
}

func (c Config) table() string {
	if c.Table == "" {
		return DefaultTable
	}
	return c.Table
}

// parseDSN accepts native-protocol DSNs only: that is what is tested, and
// batches over HTTP behave differently. The driver already keeps any
// password out of its parse errors.
func parseDSN(dsn string) (*ch.Options, error) {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	if opts.Protocol != ch.Native {
		return nil, fmt.Errorf("clickhouse dsn: want the native protocol (clickhouse://host:9000/db), got %s", opts.Protocol)
	}
	return opts, nil
}
