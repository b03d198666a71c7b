// Package auditlogtest is the acceptance suite every audit log backend
// (the JSON-lines day files, ClickHouse) must pass.
package auditlogtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

// Open returns a fresh, empty backend for one subtest, cleaned up by t.
type Open func(t *testing.T) auditlog.Log

// t0 has nanoseconds: backends keep the exact time.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 123456789, time.UTC)

// Run runs every case as a parallel subtest, each with its own backend from
// open. Backends may share a server: each open must give an empty one.
func Run(t *testing.T, open Open) {
	cases := []struct {
		name string
		fn   func(t *testing.T, l auditlog.Log)
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"BeforeAfterPreserved", testBeforeAfter},
		{"TenantIsolation", testTenantIsolation},
		{"Filters", testFilters},
		{"TimeRange", testTimeRange},
		{"NewestFirst", testNewestFirst},
		{"TiesInWriteOrder", testTies},
		{"Limit", testLimit},
		{"ManyDays", testManyDays},
		{"InvalidBatchRefused", testInvalidBatch},
		{"InvalidQuery", testInvalidQuery},
		{"UnusualStrings", testUnusualStrings},
		{"ContextCanceled", testContextCanceled},
		{"Redact", testRedact},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, open(t))
		})
	}
}

// entry is an applied rule decision of epoch e-1 at t0 for tenant acme;
// callers change what matters.
func entry(phase, op string, ids ...string) auditlog.Entry {
	return auditlog.Entry{
		Time:      t0,
		Tenant:    "acme",
		Epoch:     "e-1",
		Seq:       1,
		Phase:     phase,
		Op:        op,
		MemoryIDs: ids,
		Applied:   true,
		Decider:   auditlog.DeciderRule,
	}
}

func write(t *testing.T, l auditlog.Log, entries ...auditlog.Entry) {
	t.Helper()
	if err := l.Write(context.Background(), entries); err != nil {
		t.Fatalf("write %d entries: %v", len(entries), err)
	}
}

func read(t *testing.T, l auditlog.Log, q auditlog.Query) []auditlog.Entry {
	t.Helper()
	got, err := l.Read(context.Background(), q)
	if err != nil {
		t.Fatalf("read %+v: %v", q, err)
	}
	if got == nil {
		t.Fatalf("read %+v returned nil, want an empty slice at least", q)
	}
	return got
}

// wantReasons compares the entries' reasons in order: cases tag each entry
// with a unique reason.
func wantReasons(t *testing.T, what string, got []auditlog.Entry, want ...string) {
	t.Helper()
	have := make([]string, len(got))
	for i, e := range got {
		have[i] = e.Reason
	}
	if len(want) == 0 {
		want = []string{}
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("%s: got reasons %q, want %q", what, have, want)
	}
}

// wantEqual compares entries field by field; times by instant and zone
// (UTC), snapshots as JSON values.
func wantEqual(t *testing.T, got, want auditlog.Entry) {
	t.Helper()
	var diffs []string
	if !got.Time.Equal(want.Time) || got.Time.Location() != time.UTC {
		diffs = append(diffs, fmt.Sprintf("time %s (%s), want %s in UTC", got.Time, got.Time.Location(), want.Time))
	}
	for _, s := range []struct {
		name      string
		got, want json.RawMessage
	}{{"before", got.Before, want.Before}, {"after", got.After, want.After}} {
		if !sameJSON(s.got, s.want) {
			diffs = append(diffs, fmt.Sprintf("%s %s, want %s", s.name, s.got, s.want))
		}
	}
	got.Time, want.Time = time.Time{}, time.Time{}
	got.Before, got.After, want.Before, want.After = nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		diffs = append(diffs, fmt.Sprintf("fields\n got %+v\nwant %+v", got, want))
	}
	if len(diffs) > 0 {
		t.Fatalf("entry differs: %s", strings.Join(diffs, "; "))
	}
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
