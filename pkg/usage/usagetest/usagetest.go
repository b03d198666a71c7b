// Package usagetest is the acceptance suite every usage backend (the local
// log, ClickHouse) must pass, plus an in-memory backend for tests.
package usagetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// Open returns a fresh, empty backend for one subtest, cleaned up by t.
type Open func(t *testing.T) (usage.Writer, usage.Reader)

// t0 is whole seconds because a backend may keep time at second precision
// (ClickHouse before 20.1 has no DateTime64): every time the suite writes or
// filters on is a whole second.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Run runs every case as a parallel subtest, each with its own backend from
// open. Backends may share a server: each open must give an empty one.
func Run(t *testing.T, open Open) {
	cases := []struct {
		name string
		fn   func(t *testing.T, w usage.Writer, r usage.Reader)
	}{
		{"Empty", testEmpty},
		{"TotalsPerComponentModel", testTotals},
		{"BatchesAccumulate", testBatchesAccumulate},
		{"SameIDCountsOnce", testSameIDCountsOnce},
		{"TenantFilter", testTenantFilter},
		{"TimeFilter", testTimeFilter},
		{"LargeBatch", testLargeBatch},
		{"LargeValues", testLargeValues},
		{"UnusualStrings", testUnusualStrings},
		{"ContextCanceled", testContextCanceled},
		{"Buffered", testBuffered},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w, r := open(t)
			c.fn(t, w, r)
		})
	}
}

// rec builds a record at t0 for tenant "acme"; callers change what matters.
func rec(component, model string, in, out int64, d time.Duration, outcome string) usage.Record {
	return usage.Record{
		Time:         t0,
		Tenant:       "acme",
		Component:    component,
		Provider:     "openai",
		Model:        model,
		InputTokens:  in,
		OutputTokens: out,
		Duration:     d,
		Outcome:      outcome,
		TraceID:      "4bf92f3577b34da6a3ce929d0e0e4736",
	}
}

func write(t *testing.T, w usage.Writer, recs []usage.Record) {
	t.Helper()
	if err := w.Write(context.Background(), recs); err != nil {
		t.Fatalf("write %d records: %v", len(recs), err)
	}
}

func totals(t *testing.T, r usage.Reader, q usage.Query) []usage.Total {
	t.Helper()
	got, err := r.Totals(context.Background(), q)
	if err != nil {
		t.Fatalf("totals %+v: %v", q, err)
	}
	return got
}

// wantTotals compares in order: Reader promises component, model order.
func wantTotals(t *testing.T, what string, got, want []usage.Total) {
	t.Helper()
	if len(got) == len(want) {
		same := true
		for i := range got {
			same = same && got[i] == want[i]
		}
		if same {
			return
		}
	}
	t.Fatalf("%s: totals\n got: %s\nwant: %s", what, show(got), show(want))
}

func show(ts []usage.Total) string {
	if len(ts) == 0 {
		return "(none)"
	}
	var b strings.Builder
	for _, x := range ts {
		fmt.Fprintf(&b, "\n  %q/%q calls=%d errors=%d in=%d out=%d dur=%s",
			x.Component, x.Model, x.Calls, x.Errors, x.InputTokens, x.OutputTokens, x.Duration)
	}
	return b.String()
}
