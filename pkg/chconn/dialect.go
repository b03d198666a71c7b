package chconn

import (
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Dialect is what the server supports. Servers before 20.1 have neither
// DateTime64 nor LowCardinality outside an experimental flag (Debian ships
// 18.16), so there time is kept to the second and names are String.
type Dialect struct {
	modern bool
}

func dialectOf(v *driver.ServerVersion) Dialect {
	return Dialect{modern: v.Version.Major > 20 || (v.Version.Major == 20 && v.Version.Minor >= 1)}
}

// Modern reports whether the server has DateTime64 and LowCardinality.
func (d Dialect) Modern() bool { return d.modern }

// TimeType is the type of a time column: milliseconds where the server
// has DateTime64, else seconds.
func (d Dialect) TimeType() string {
	if d.modern {
		return "DateTime64(3, 'UTC')"
	}
	return "DateTime('UTC')"
}

// NameType is the type of a column of few distinct strings (tenants,
// components, models).
func (d Dialect) NameType() string {
	if d.modern {
		return "LowCardinality(String)"
	}
	return "String"
}

// TimeArg turns a bound string into a time of TimeType's precision.
func (d Dialect) TimeArg() string {
	if d.modern {
		return "toDateTime64(?, 3, 'UTC')"
	}
	return "toDateTime(?, 'UTC')"
}

// TimeLiteral formats t for TimeArg. Old servers keep whole seconds, so
// the bound is truncated like the stored times are.
func (d Dialect) TimeLiteral(t time.Time) string {
	const layout = "2006-01-02 15:04:05"
	if d.modern {
		return t.UTC().Format(layout + ".000")
	}
	return t.UTC().Format(layout)
}
