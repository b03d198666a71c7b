package usagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
)

func testTenantFilter(t *testing.T, w usage.Writer, r usage.Reader) {
	var recs []usage.Record
	for i, tenant := range []string{"acme", "globex", "acme", "initech", "globex", "acme"} {
		x := rec("extractor", "m", int64(i+1), 0, time.Second, usage.OutcomeOK)
		x.Tenant = tenant
		recs = append(recs, x)
	}
	write(t, w, recs)
	one := func(calls, in int64) []usage.Total {
		return []usage.Total{{Component: "extractor", Model: "m", Calls: calls, InputTokens: in, Duration: time.Duration(calls) * time.Second}}
	}
	for _, tc := range []struct {
		tenant string
		want   []usage.Total
	}{
		{"acme", one(3, 1+3+6)},
		{"globex", one(2, 2+5)},
		{"initech", one(1, 4)},
		{"", one(6, 21)},
		{"ACME", nil},
		{"acm", nil},
	} {
		t.Run("tenant="+tc.tenant, func(t *testing.T) {
			wantTotals(t, "tenant "+tc.tenant, totals(t, r, usage.Query{Tenant: tc.tenant}), tc.want)
		})
	}
}

// testTimeFilter writes one record a second for four seconds, each with its
// second number in InputTokens, and checks the half-open ranges.
func testTimeFilter(t *testing.T, w usage.Writer, r usage.Reader) {
	var recs []usage.Record
	for i := range 4 {
		x := rec("query", "m", 1<<i, 0, time.Millisecond, usage.OutcomeOK)
		x.Time = t0.Add(time.Duration(i) * time.Second)
		recs = append(recs, x)
		other := x
		other.Tenant = "globex"
		other.InputTokens = 100
		recs = append(recs, other)
	}
	write(t, w, recs)
	sec := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	// seconds lists which of the four acme records the query must select.
	for _, tc := range []struct {
		name    string
		q       usage.Query
		seconds []int
	}{
		{"since first", usage.Query{Since: sec(0)}, []int{0, 1, 2, 3}},
		{"since is inclusive", usage.Query{Since: sec(1)}, []int{1, 2, 3}},
		{"until is exclusive", usage.Query{Until: sec(2)}, []int{0, 1}},
		{"both", usage.Query{Since: sec(1), Until: sec(3)}, []int{1, 2}},
		{"single second", usage.Query{Since: sec(3), Until: sec(4)}, []int{3}},
		{"before all", usage.Query{Until: sec(0)}, nil},
		{"after all", usage.Query{Since: sec(4)}, nil},
		{"empty range", usage.Query{Since: sec(2), Until: sec(2)}, nil},
		{"other time zone", usage.Query{Since: sec(2).In(time.FixedZone("UTC+5", 5*3600))}, []int{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Tenant = "acme"
			var want []usage.Total
			if len(tc.seconds) > 0 {
				tot := usage.Total{Component: "query", Model: "m"}
				for _, s := range tc.seconds {
					tot.Calls++
					tot.InputTokens += 1 << s
					tot.Duration += time.Millisecond
				}
				want = []usage.Total{tot}
			}
			wantTotals(t, tc.name, totals(t, r, q), want)
		})
	}
}

// testContextCanceled: a cancelled write stores nothing and says so; a
// cancelled read fails instead of returning partial totals. Both errors
// wrap context.Canceled.
func testContextCanceled(t *testing.T, w usage.Writer, r usage.Reader) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := w.Write(ctx, []usage.Record{rec("query", "m", 1, 0, time.Millisecond, usage.OutcomeOK)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("write with a cancelled context = %v, want context.Canceled", err)
	}
	wantTotals(t, "after cancelled write", totals(t, r, usage.Query{}), nil)
	if got, err := r.Totals(ctx, usage.Query{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("totals with a cancelled context = %v, %v; want context.Canceled", got, err)
	}
}
