package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/recollect-dev/recollect/pkg/query"
)

// Reindex asks the server to move the tenant's memories to its configured
// embedding model in the background (POST /v1/reindex). Resending is safe:
// a reindex of a tenant already on the model changes nothing.
func (c *Client) Reindex(ctx context.Context, tenant string) (query.ReindexResponse, error) {
	var resp query.ReindexResponse
	req := query.ReindexRequest{Tenant: c.tenantOr(tenant)}
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/reindex", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("reindex: %w", err)
	}
	return resp, nil
}
