package auditlogtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// testNewestFirst writes times out of order: reads sort by time, then by
// the epoch sequence number.
func testNewestFirst(t *testing.T, l auditlog.Log) {
	at := func(d time.Duration, seq int64, reason string) auditlog.Entry {
		e := entry("gate", "promote")
		e.Time, e.Seq, e.Reason = t0.Add(d), seq, reason
		return e
	}
	write(t, l, at(3*time.Second, 1, "3s"), at(time.Second, 1, "1s"), at(2*time.Second, 1, "2s"))
	write(t, l, at(0, 1, "0s"), at(2*time.Second+time.Nanosecond, 1, "2s+1ns"))
	write(t, l, at(5*time.Second, 5, "5s seq 5"), at(5*time.Second, 7, "5s seq 7"), at(5*time.Second, 6, "5s seq 6"))
	wantReasons(t, "newest first", read(t, l, auditlog.Query{Tenant: "acme"}),
		"5s seq 7", "5s seq 6", "5s seq 5", "3s", "2s+1ns", "2s", "1s", "0s")
}

// testTies: entries with the same time and sequence number (an epoch that
// stamps a phase with one clock reading) come back in reverse write order,
// within a batch and across batches.
func testTies(t *testing.T, l auditlog.Log) {
	tie := func(reason string) auditlog.Entry {
		e := entry("merge", "merge")
		e.Reason = reason
		return e
	}
	write(t, l, tie("a"), tie("b"), tie("c"))
	write(t, l, tie("d"))
	write(t, l, tie("e"), tie("f"))
	wantReasons(t, "ties", read(t, l, auditlog.Query{Tenant: "acme"}), "f", "e", "d", "c", "b", "a")
}

func testLimit(t *testing.T, l auditlog.Log) {
	const n = 150
	es := make([]auditlog.Entry, n)
	for i := range es {
		es[i] = entry("decay", "adjust")
		es[i].Time, es[i].Reason = t0.Add(time.Duration(i)*time.Millisecond), fmt.Sprint(i)
		if i%2 == 1 {
			es[i].Op = "archive"
		}
	}
	write(t, l, es[:n/2]...)
	write(t, l, es[n/2:]...)
	newest := func(k int, keep func(i int) bool) []string {
		var out []string
		for i := n - 1; i >= 0 && len(out) < k; i-- {
			if keep(i) {
				out = append(out, fmt.Sprint(i))
			}
		}
		return out
	}
	every := func(int) bool { return true }
	for _, tc := range []struct {
		name string
		q    auditlog.Query
		want []string
	}{
		{"default", auditlog.Query{}, newest(auditlog.DefaultLimit, every)},
		{"explicit", auditlog.Query{Limit: 7}, newest(7, every)},
		{"one", auditlog.Query{Limit: 1}, newest(1, every)},
		{"maximum", auditlog.Query{Limit: auditlog.MaxLimit}, newest(n, every)},
		{"with a filter", auditlog.Query{Op: "archive", Limit: 5}, newest(5, func(i int) bool { return i%2 == 1 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Tenant = "acme"
			wantReasons(t, tc.name, read(t, l, q), tc.want...)
		})
	}
}
