package chconn

import (
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"
)

// TestDialectOf covers the versions around 20.1; the local server (Debian's
// 18.16) exercises only the old dialect end to end.
func TestDialectOf(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 250_000_000, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		version              string
		modern               bool
		timeType, nameType   string
		timeArg, timeLiteral string
	}{
		{"18.16.1", false, "DateTime('UTC')", "String", "toDateTime(?, 'UTC')", "2024-05-06 06:08:09"},
		{"19.17.4", false, "DateTime('UTC')", "String", "toDateTime(?, 'UTC')", "2024-05-06 06:08:09"},
		{"20.1.2", true, "DateTime64(3, 'UTC')", "LowCardinality(String)", "toDateTime64(?, 3, 'UTC')", "2024-05-06 06:08:09.250"},
		{"24.8.1", true, "DateTime64(3, 'UTC')", "LowCardinality(String)", "toDateTime64(?, 3, 'UTC')", "2024-05-06 06:08:09.250"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			d := dialectOf(&driver.ServerVersion{Version: proto.ParseVersion(tc.version)})
			if d.Modern() != tc.modern {
				t.Fatalf("modern = %v, want %v", d.Modern(), tc.modern)
			}
			for _, c := range []struct{ what, got, want string }{
				{"TimeType", d.TimeType(), tc.timeType},
				{"NameType", d.NameType(), tc.nameType},
				{"TimeArg", d.TimeArg(), tc.timeArg},
				{"TimeLiteral", d.TimeLiteral(at), tc.timeLiteral},
			} {
				if c.got != c.want {
					t.Errorf("%s = %s, want %s", c.what, c.got, c.want)
				}
			}
		})
	}
}
