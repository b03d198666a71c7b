package client

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
)

// AuditOptions select entries of GET /v1/audit; empty fields mean any.
type AuditOptions struct {
	Tenant   string
	Phase    string
	Op       string
	MemoryID string
	Epoch    string
	Since    time.Time // inclusive
	Until    time.Time // exclusive
	Limit    int       // 1-10000, 0 = the server's default (100)
}

// AuditResponse is the tenant's audit entries, newest first.
type AuditResponse = api.AuditResponse

// Audit reads the consolidation audit log: every operation an epoch
// applied or refused, with the memories before and after.
func (c *Client) Audit(ctx context.Context, opts AuditOptions) (AuditResponse, error) {
	q := tenantQuery(c.tenantOr(opts.Tenant))
	for name, v := range map[string]string{"phase": opts.Phase, "op": opts.Op, "memory": opts.MemoryID, "epoch": opts.Epoch} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !opts.Since.IsZero() {
		q.Set("since", opts.Since.UTC().Format(time.RFC3339Nano))
	}
	if !opts.Until.IsZero() {
		q.Set("until", opts.Until.UTC().Format(time.RFC3339Nano))
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	var resp AuditResponse
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/audit", query: q, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("read audit log: %w", err)
	}
	return resp, nil
}
