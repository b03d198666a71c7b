package clickhouse

import (
	"slices"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/chconn"
)

// TestColumnsAreTheSchema: Columns (the insert list) names the columns of
// the CREATE TABLE, in order (the dialect changes types, not names).
func TestColumnsAreTheSchema(t *testing.T) {
	var defined []string
	for _, line := range strings.Split(schema(chconn.Dialect{}).Columns, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			defined = append(defined, f[0])
		}
	}
	if !slices.Equal(defined, Columns()) {
		t.Fatalf("schema defines %v, Columns() = %v", defined, Columns())
	}
}
