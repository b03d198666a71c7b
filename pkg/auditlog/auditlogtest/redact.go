package auditlogtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// testRedact: an entry naming a purged memory, in its ids or only in its
// snapshots, loses its words and keeps its ids and operation; entries of
// other memories and other tenants keep theirs; a second redaction finds
// nothing. Skipped for a backend that cannot redact.
func testRedact(t *testing.T, l auditlog.Log) {
	r, ok := l.(auditlog.Redactor)
	if !ok {
		t.Skip("the backend cannot redact")
	}
	ctx := context.Background()
	secret := memory.Memory{ID: "m-ada", Tenant: "acme", Subject: "ada", Content: "Ada's cat is Zephyrbloom"}
	other := memory.Memory{ID: "m-bob", Tenant: "acme", Subject: "bob", Content: "Bob ships on Thursdays"}
	byID := entry("supersede", "supersede", "m-ada")
	byID.Before, byID.After, byID.Reason = auditlog.Snapshot(secret), auditlog.Snapshot(secret), "Zephyrbloom superseded"
	bySnapshot := entry("merge", "merge", "m-merged")
	bySnapshot.Before, bySnapshot.Reason = auditlog.Snapshot(secret, other), "merged"
	kept := entry("gate", "promote", "m-bob")
	kept.After, kept.Reason = auditlog.Snapshot(other), "bob kept"
	otherTenant := entry("gate", "promote", "m-ada")
	otherTenant.Tenant, otherTenant.After, otherTenant.Reason = "globex", auditlog.Snapshot(secret), "globex kept"
	write(t, l, byID, bySnapshot, kept, otherTenant)

	n, err := r.Redact(ctx, "acme", []string{"m-ada"})
	if err != nil || n != 2 {
		t.Fatalf("Redact = %d, %v; want 2 entries", n, err)
	}
	got := read(t, l, auditlog.Query{Tenant: "acme", Limit: auditlog.MaxLimit})
	raw, _ := json.Marshal(got)
	if strings.Contains(string(raw), "Zephyrbloom") {
		t.Fatalf("the purged words are still read back: %s", raw)
	}
	byOp := map[string]auditlog.Entry{}
	for _, e := range got {
		byOp[e.Op] = e
	}
	if e := byOp["supersede"]; e.Reason != auditlog.RedactedReason || len(e.Before) != 0 || len(e.After) != 0 || len(e.MemoryIDs) != 1 || e.MemoryIDs[0] != "m-ada" {
		t.Fatalf("redacted entry = %+v, want ids and operation only", e)
	}
	if e := byOp["merge"]; e.Reason != auditlog.RedactedReason || len(e.Before) != 0 {
		t.Fatalf("entry naming the memory in its snapshot only = %+v, want redacted", e)
	}
	if e := byOp["promote"]; e.Reason != "bob kept" || len(e.After) == 0 {
		t.Fatalf("another memory's entry = %+v, want it whole", e)
	}
	g := read(t, l, auditlog.Query{Tenant: "globex", Limit: auditlog.MaxLimit})
	if len(g) != 1 || g[0].Reason != "globex kept" {
		t.Fatalf("another tenant's entries = %+v, want them whole", g)
	}
	if n, err := r.Redact(ctx, "acme", []string{"m-ada"}); err != nil || n != 0 {
		t.Fatalf("second Redact = %d, %v; want 0", n, err)
	}
}
