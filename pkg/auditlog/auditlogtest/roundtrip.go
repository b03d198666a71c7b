package auditlogtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
)

func testEmpty(t *testing.T, l auditlog.Log) {
	wantReasons(t, "empty log", read(t, l, auditlog.Query{Tenant: "acme"}))
	if err := l.Write(context.Background(), nil); err != nil {
		t.Fatalf("write of no entries: %v", err)
	}
	wantReasons(t, "after an empty write", read(t, l, auditlog.Query{Tenant: "acme"}))
}

func testRoundTrip(t *testing.T, l auditlog.Log) {
	full := auditlog.Entry{
		Time:      t0.In(time.FixedZone("UTC+5", 5*3600)), // read back in UTC
		Tenant:    "acme",
		Epoch:     "manual:6f1c1a55-1b6e-4c43-9a57-6a2b0a3f3c11",
		Seq:       42,
		Phase:     "audit",
		Op:        "merge",
		MemoryIDs: []string{"mem-a", "mem-b"},
		Before:    auditlog.Snapshot(memory.Memory{ID: "mem-a", Tenant: "acme", Content: "a"}, memory.Memory{ID: "mem-b", Tenant: "acme", Content: "b"}),
		After:     auditlog.Snapshot(memory.Memory{ID: "mem-a", Tenant: "acme", Content: "a and b"}),
		Applied:   false,
		Reason:    "sandbox: safety score 0.55 is below 0.70",
		Decider:   auditlog.DeciderLLM,
		Model:     "gpt-4o-mini",
	}
	bare := auditlog.Entry{
		Time:    t0.Add(time.Second),
		Tenant:  "acme",
		Phase:   "purge",
		Op:      "delete",
		Applied: true,
		Decider: auditlog.DeciderUser,
	}
	write(t, l, full)
	write(t, l, bare)
	got := read(t, l, auditlog.Query{Tenant: "acme"})
	if len(got) != 2 {
		t.Fatalf("read %d entries, want 2: %+v", len(got), got)
	}
	wantEqual(t, got[0], bare)
	wantEqual(t, got[1], full)
}

func testBeforeAfter(t *testing.T, l auditlog.Log) {
	invalid := t0.Add(-time.Hour)
	before := []memory.Memory{
		{
			ID: "m1", Tenant: "acme", Namespace: "default", Content: "The user's editor is \"Vim\"\n\tsince 2019 — ünïcödé ✓ <b>&</b>",
			Domain: "user-preferences", Type: memory.TypePreference, Kind: memory.KindSemantic, Layer: memory.LayerWorking,
			Importance: 0.61, Confidence: 0.9, AccessCount: 3, Tags: []string{"editor", "tools"},
			CreatedAt: t0.Add(-48 * time.Hour), ModifiedAt: t0.Add(-2 * time.Hour), Vector: []float32{0.1, 0.2, 0.3},
		},
		{ID: "m2", Tenant: "acme", Namespace: "default", Content: `back\slash 'quote'`, Layer: memory.LayerBuffer, Vector: []float32{1}},
	}
	after := before[0]
	after.InvalidAt, after.SupersededBy = &invalid, "m3"
	e := entry("supersede", "supersede", "m1", "m2")
	e.Before, e.After = auditlog.Snapshot(before...), auditlog.Snapshot(after)
	write(t, l, e)

	got := read(t, l, auditlog.Query{Tenant: "acme"})
	if len(got) != 1 {
		t.Fatalf("read %d entries, want 1", len(got))
	}
	wantEqual(t, got[0], e)
	ms, err := auditlog.Memories(got[0].Before)
	if err != nil || len(ms) != 2 || ms[0].Content != before[0].Content || ms[1].Content != before[1].Content || ms[0].Importance != 0.61 {
		t.Fatalf("before decodes to %+v (%v), want both memories", ms, err)
	}
	for _, m := range ms {
		if m.Vector != nil {
			t.Fatalf("memory %s kept its vector in the audit log", m.ID)
		}
	}
	as, err := auditlog.Memories(got[0].After)
	if err != nil || len(as) != 1 || as[0].InvalidAt == nil || !as[0].InvalidAt.Equal(invalid) || as[0].SupersededBy != "m3" {
		t.Fatalf("after decodes to %+v (%v), want the superseded memory", as, err)
	}
	if before[0].Vector == nil {
		t.Fatal("Snapshot changed the caller's memory")
	}
}

func testTenantIsolation(t *testing.T, l auditlog.Log) {
	var es []auditlog.Entry
	for i, tenant := range []string{"acme", "globex", "acme", "acme-2", "globex"} {
		e := entry("decay", "adjust")
		e.Tenant, e.Reason, e.Time = tenant, tenant+string(rune('0'+i)), t0.Add(time.Duration(i)*time.Second)
		es = append(es, e)
	}
	write(t, l, es...)
	for _, tc := range []struct {
		tenant string
		want   []string
	}{
		{"acme", []string{"acme2", "acme0"}},
		{"globex", []string{"globex4", "globex1"}},
		{"acme-2", []string{"acme-23"}},
		{"ACME", nil},
		{"acm", nil},
		{"initech", nil},
	} {
		t.Run(tc.tenant, func(t *testing.T) {
			wantReasons(t, "tenant "+tc.tenant, read(t, l, auditlog.Query{Tenant: tc.tenant}), tc.want...)
		})
	}
}

func testInvalidBatch(t *testing.T, l auditlog.Log) {
	for _, tc := range []struct {
		name  string
		field string
		bad   func(e *auditlog.Entry)
	}{
		{"no tenant", "tenant", func(e *auditlog.Entry) { e.Tenant = "" }},
		{"bad tenant", "tenant", func(e *auditlog.Entry) { e.Tenant = "a b" }},
		{"no time", "time", func(e *auditlog.Entry) { e.Time = time.Time{} }},
		{"no phase", "phase", func(e *auditlog.Entry) { e.Phase = "" }},
		{"no op", "op", func(e *auditlog.Entry) { e.Op = "" }},
		{"unknown decider", "decider", func(e *auditlog.Entry) { e.Decider = "oracle" }},
		{"before not JSON", "before", func(e *auditlog.Entry) { e.Before = []byte("{") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, bad := entry("gate", "promote"), entry("gate", "promote")
			tc.bad(&bad)
			err := l.Write(context.Background(), []auditlog.Entry{good, bad})
			var fe *memory.FieldError
			if !errors.Is(err, memory.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "entries[1]."+tc.field {
				t.Fatalf("write = %v, want an invalid entries[1].%s", err, tc.field)
			}
		})
	}
	wantReasons(t, "after refused batches", read(t, l, auditlog.Query{Tenant: "acme"}))
}

func testInvalidQuery(t *testing.T, l auditlog.Log) {
	write(t, l, entry("gate", "promote"))
	for _, tc := range []struct {
		name  string
		q     auditlog.Query
		field string
	}{
		{"no tenant", auditlog.Query{}, "tenant"},
		{"negative limit", auditlog.Query{Tenant: "acme", Limit: -1}, "limit"},
		{"limit over the maximum", auditlog.Query{Tenant: "acme", Limit: auditlog.MaxLimit + 1}, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.Read(context.Background(), tc.q)
			var fe *memory.FieldError
			if !errors.Is(err, memory.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("read = %d entries, %v; want an invalid %s", len(got), err, tc.field)
			}
		})
	}
}

// testContextCanceled: a cancelled write stores nothing and says so; a
// cancelled read fails instead of returning a partial answer.
func testContextCanceled(t *testing.T, l auditlog.Log) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Write(ctx, []auditlog.Entry{entry("gate", "promote")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("write with a cancelled context = %v, want context.Canceled", err)
	}
	wantReasons(t, "after a cancelled write", read(t, l, auditlog.Query{Tenant: "acme"}))
	if got, err := l.Read(ctx, auditlog.Query{Tenant: "acme"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("read with a cancelled context = %v, %v; want context.Canceled", got, err)
	}
}
