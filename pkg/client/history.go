package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/recollect-dev/recollect/pkg/api"
)

// History reads a memory's versions with both timelines (GET
// /v1/memories/{id}/history): valid time (valid_from … valid_until) and
// record time (created_at … invalid_at). A missing memory is ErrNotFound.
func (c *Client) History(ctx context.Context, tenant, id string) (api.History, error) {
	var h api.History
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/memories/" + url.PathEscape(id) + "/history",
		query: tenantQuery(c.tenantOr(tenant)), out: &h, idempotent: true}); err != nil {
		return h, fmt.Errorf("history of memory %s: %w", id, err)
	}
	return h, nil
}
