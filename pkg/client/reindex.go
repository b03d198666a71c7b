package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/recollect-dev/recollect/pkg/api"
)

// Reindex asks the server to move the tenant's memories to its configured
// embedding model in the background (POST /v1/reindex). Resending is safe:
// a reindex of a tenant already on the model changes nothing.
func (c *Client) Reindex(ctx context.Context, tenant string) (api.ReindexResponse, error) {
	var resp api.ReindexResponse
	req := api.ReindexRequest{Tenant: c.tenantOr(tenant)}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/reindex", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("reindex: %w", err)
	}
	return resp, nil
}

// ReindexStatus reads where the tenant's last reindex request stands (GET
// /v1/reindex): its id, state, counts and, when failed, why. A tenant
// without one is a 404 (errors.Is ErrNotFound).
func (c *Client) ReindexStatus(ctx context.Context, tenant string) (api.ReindexStatus, error) {
	var resp api.ReindexStatus
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reindex", query: tenantQuery(c.tenantOr(tenant)), out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("reindex status: %w", err)
	}
	return resp, nil
}
