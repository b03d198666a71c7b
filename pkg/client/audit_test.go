package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// testAudit writes entries into the app's audit log, as the consolidator
// does, and reads them back through the API. Its tenant is its own: epochs
// of the other subtests write to theirs.
func testAudit(t *testing.T, a *app.App, c *client.Client) {
	ctx := context.Background()
	const tenant = "audit-client"
	t0 := time.Now().UTC().Add(-time.Hour)
	m := memory.Memory{ID: "m1", Tenant: tenant, Content: "the user's editor is Vim", Layer: memory.LayerWorking}
	promoted := m
	promoted.Layer = memory.LayerCore
	entries := []auditlog.Entry{
		{Time: t0, Tenant: tenant, Epoch: "e1", Seq: 1, Phase: "gate", Op: "promote", MemoryIDs: []string{"m1"},
			Before: auditlog.Snapshot(m), After: auditlog.Snapshot(promoted), Applied: true, Decider: auditlog.DeciderRule, Reason: "reinforced 3 times"},
		{Time: t0.Add(time.Minute), Tenant: tenant, Epoch: "e2", Seq: 2, Phase: "audit", Op: "delete", MemoryIDs: []string{"m1"},
			Before: auditlog.Snapshot(promoted), Decider: auditlog.DeciderLLM, Model: "m", Reason: "sandbox: audit may not delete"},
	}
	if err := a.Audit().Write(ctx, entries); err != nil {
		t.Fatalf("write audit entries: %v", err)
	}
	ac := c.WithOptions(client.WithTenant(tenant))
	resp, err := ac.Audit(ctx, client.AuditOptions{})
	if err != nil || resp.Tenant != tenant || len(resp.Entries) != 2 || resp.Entries[0].Op != "delete" || resp.Entries[0].Applied {
		t.Fatalf("audit = %+v, %v; want both entries, the refused delete first", resp, err)
	}
	after, err := auditlog.Memories(resp.Entries[1].After)
	if err != nil || len(after) != 1 || after[0].Layer != memory.LayerCore {
		t.Fatalf("after of the promotion = %s (%v)", resp.Entries[1].After, err)
	}
	for _, tc := range []struct {
		name string
		opts client.AuditOptions
		want string
	}{
		{"phase", client.AuditOptions{Phase: "gate"}, "promote"},
		{"op", client.AuditOptions{Op: "delete"}, "delete"},
		{"epoch", client.AuditOptions{Epoch: "e1"}, "promote"},
		{"memory and limit", client.AuditOptions{MemoryID: "m1", Limit: 1}, "delete"},
		{"since", client.AuditOptions{Since: t0.Add(time.Second)}, "delete"},
		{"until", client.AuditOptions{Until: t0.Add(time.Second)}, "promote"},
	} {
		resp, err := ac.Audit(ctx, tc.opts)
		if err != nil || len(resp.Entries) != 1 || resp.Entries[0].Op != tc.want {
			t.Fatalf("%s: audit = %+v, %v; want only the %s", tc.name, resp.Entries, err, tc.want)
		}
	}
	// The client's tenant is acme; other tenants' entries stay out.
	if resp, err := c.Audit(ctx, client.AuditOptions{MemoryID: "m1"}); err != nil || resp.Tenant != "acme" || len(resp.Entries) != 0 {
		t.Fatalf("acme's audit = %+v, %v; want none of %s's entries", resp, err, tenant)
	}
	_, err = ac.Audit(ctx, client.AuditOptions{Limit: auditlog.MaxLimit + 1})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Field != "limit" || !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("limit over the maximum: %v", err)
	}
}
