package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/recollect-dev/recollect/pkg/api"
)

// WhoAmI says who the client's API key is (GET /v1/whoami).
func (c *Client) WhoAmI(ctx context.Context) (api.WhoAmI, error) {
	var resp api.WhoAmI
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/whoami", out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("whoami: %w", err)
	}
	return resp, nil
}

// Tenants lists every tenant with its counts (GET /v1/tenants, admin keys
// only).
func (c *Client) Tenants(ctx context.Context) ([]api.TenantSummary, error) {
	var resp api.TenantsResponse
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/tenants", out: &resp, idempotent: true}); err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	return resp.Tenants, nil
}

// ReviewQuarantine releases, keeps or deletes a quarantined memory
// (POST /v1/memories/{id}/quarantine, admin keys only; audited).
func (c *Client) ReviewQuarantine(ctx context.Context, id string, req api.QuarantineRequest) (api.QuarantineResponse, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	var resp api.QuarantineResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/memories/" + url.PathEscape(id) + "/quarantine", body: req, out: &resp}); err != nil {
		return resp, fmt.Errorf("review quarantine of %s: %w", id, err)
	}
	return resp, nil
}

// Pipeline reads how the queue and the server's modules stand
// (GET /v1/pipeline, admin keys only).
func (c *Client) Pipeline(ctx context.Context) (api.Pipeline, error) {
	var resp api.Pipeline
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pipeline", out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("read pipeline: %w", err)
	}
	return resp, nil
}
