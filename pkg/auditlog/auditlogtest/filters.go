package auditlogtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

func testFilters(t *testing.T, l auditlog.Log) {
	at := func(i int, e auditlog.Entry) auditlog.Entry {
		e.Time, e.Reason = t0.Add(time.Duration(i)*time.Second), fmt.Sprintf("r%d", i)
		return e
	}
	r3 := entry("gate", "reject", "m1", "m3")
	r3.Epoch, r3.Seq, r3.Applied, r3.Decider, r3.Model = "e-2", 2, false, auditlog.DeciderLLM, "m"
	r4 := entry("merge", "merge", "m10", "m1")
	r4.Epoch, r4.Seq = "e-2", 2
	write(t, l,
		at(1, entry("triage", "promote", "m1")),
		at(2, entry("gate", "promote", "m2")),
		at(3, r3),
		at(4, r4),
	)
	for _, tc := range []struct {
		name string
		q    auditlog.Query
		want []string
	}{
		{"all", auditlog.Query{}, []string{"r4", "r3", "r2", "r1"}},
		{"phase", auditlog.Query{Phase: "gate"}, []string{"r3", "r2"}},
		{"phase is exact", auditlog.Query{Phase: "GATE"}, nil},
		{"op", auditlog.Query{Op: "promote"}, []string{"r2", "r1"}},
		{"epoch", auditlog.Query{Epoch: "e-2"}, []string{"r4", "r3"}},
		{"epoch is exact", auditlog.Query{Epoch: "e-"}, nil},
		{"memory", auditlog.Query{MemoryID: "m1"}, []string{"r4", "r3", "r1"}},
		{"memory is a whole id", auditlog.Query{MemoryID: "m"}, nil},
		{"memory among several", auditlog.Query{MemoryID: "m10"}, []string{"r4"}},
		{"all filters", auditlog.Query{Phase: "gate", Op: "reject", MemoryID: "m3", Epoch: "e-2"}, []string{"r3"}},
		{"filters that exclude each other", auditlog.Query{Phase: "triage", Epoch: "e-2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Tenant = "acme"
			wantReasons(t, tc.name, read(t, l, q), tc.want...)
		})
	}
}

// testTimeRange writes entries less than a second apart and across a
// second boundary: a backend that keeps coarser times must still filter
// exactly.
func testTimeRange(t *testing.T, l auditlog.Log) {
	offsets := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 900 * time.Millisecond, time.Second, 2 * time.Second}
	var es []auditlog.Entry
	for i, d := range offsets {
		e := entry("decay", "adjust")
		e.Time, e.Reason = t0.Add(d), fmt.Sprintf("r%d", i)
		es = append(es, e)
		other := e
		other.Tenant = "globex"
		es = append(es, other)
	}
	write(t, l, es...)
	at := func(i int) time.Time { return t0.Add(offsets[i]) }
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         []string
	}{
		{"since is inclusive", at(2), time.Time{}, []string{"r5", "r4", "r3", "r2"}},
		{"since to the nanosecond", at(2).Add(time.Nanosecond), time.Time{}, []string{"r5", "r4", "r3"}},
		{"until is exclusive", time.Time{}, at(2), []string{"r1", "r0"}},
		{"until to the nanosecond", time.Time{}, at(2).Add(time.Nanosecond), []string{"r2", "r1", "r0"}},
		{"both, across a second", at(3), at(5), []string{"r4", "r3"}},
		{"within a second", at(1), at(3), []string{"r2", "r1"}},
		{"before all", time.Time{}, at(0), nil},
		{"after all", at(5).Add(time.Nanosecond), time.Time{}, nil},
		{"empty range", at(2), at(2), nil},
		{"other time zone", at(4).In(time.FixedZone("UTC-7", -7*3600)), time.Time{}, []string{"r5", "r4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReasons(t, tc.name, read(t, l, auditlog.Query{Tenant: "acme", Since: tc.since, Until: tc.until}), tc.want...)
		})
	}
}

// testManyDays spreads entries over five days, written out of order: a
// backend that splits its storage by day must still answer newest first
// and cut at the limit across days.
func testManyDays(t *testing.T, l auditlog.Log) {
	day := func(d, i int) auditlog.Entry {
		e := entry("decay", "adjust")
		e.Time = time.Date(2025, 6, 1+d, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 7 * time.Hour)
		e.Reason = fmt.Sprintf("d%d.%d", d, i)
		return e
	}
	write(t, l, day(2, 0), day(0, 1), day(4, 2))
	write(t, l, day(1, 3), day(3, 0), day(0, 0))
	write(t, l, day(2, 3), day(4, 0))
	all := []string{"d4.2", "d4.0", "d3.0", "d2.3", "d2.0", "d1.3", "d0.1", "d0.0"}
	for _, tc := range []struct {
		name string
		q    auditlog.Query
		want []string
	}{
		{"all", auditlog.Query{}, all},
		{"limit within the newest day", auditlog.Query{Limit: 1}, all[:1]},
		{"limit across days", auditlog.Query{Limit: 4}, all[:4]},
		{"since a day", auditlog.Query{Since: time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)}, all[:5]},
		{"until a day", auditlog.Query{Until: time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)}, all[5:]},
		{"a middle day", auditlog.Query{Since: time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), Until: time.Date(2025, 6, 4, 0, 0, 0, 0, time.UTC)}, all[3:5]},
		{"range and limit", auditlog.Query{Since: time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), Limit: 3}, all[:3]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Tenant = "acme"
			wantReasons(t, tc.name, read(t, l, q), tc.want...)
		})
	}
}

// testUnusualStrings: values with quotes, placeholders and control
// characters are stored and matched as they are.
func testUnusualStrings(t *testing.T, l auditlog.Log) {
	odd := []string{`it's`, `say "hi"`, `back\slash`, "new\nline\ttab", `?`, `'); DROP TABLE x; --`, "ünï ✓ 日本", `%_*`}
	var es []auditlog.Entry
	for i, s := range odd {
		e := entry(s, s, s, "plain")
		e.Epoch, e.Model, e.Reason = s, s, s
		e.Time = t0.Add(time.Duration(i) * time.Second)
		es = append(es, e)
	}
	write(t, l, es...)
	for i, s := range odd {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, q := range []auditlog.Query{{Phase: s}, {Op: s}, {Epoch: s}, {MemoryID: s}} {
				q.Tenant = "acme"
				got := read(t, l, q)
				wantReasons(t, fmt.Sprintf("query %+v", q), got, s)
				wantEqual(t, got[0], es[i])
			}
		})
	}
}
