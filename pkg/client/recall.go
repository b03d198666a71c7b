package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
)

// Recall ranks the tenant's memories for a query (POST /v1/recall): the
// ranked memories with every part of their score, and the prompt-ready
// "Recalled Context" block.
func (c *Client) Recall(ctx context.Context, req api.RecallRequest) (api.RecallResponse, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	req.Namespace = c.namespaceOr(req.Namespace)
	var resp api.RecallResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/recall", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("recall %q: %w", req.Query, err)
	}
	return resp, nil
}

// Topics returns the tenant's topic tree, or the topics named by req.IDs
// and, in Details, their memories (POST /v1/topics).
func (c *Client) Topics(ctx context.Context, req api.TopicsRequest) (api.TopicsResponse, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	var resp api.TopicsResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/topics", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("topics: %w", err)
	}
	return resp, nil
}

// ConsolidateResponse is the answer of POST /v1/consolidate.
type ConsolidateResponse = api.ConsolidateResponse

// Consolidate asks for a consolidation epoch of the tenant (POST
// /v1/consolidate). It runs asynchronously; the call is never retried
// because each one requests a new epoch.
func (c *Client) Consolidate(ctx context.Context, req api.ConsolidateRequest) (ConsolidateResponse, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	var resp ConsolidateResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/consolidate", body: req, out: &resp}); err != nil {
		return resp, fmt.Errorf("consolidate: %w", err)
	}
	return resp, nil
}

// Stats counts the tenant's memories by domain, type, kind and layer (GET
// /v1/stats).
func (c *Client) Stats(ctx context.Context, tenant string) (api.Stats, error) {
	var resp api.Stats
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stats", query: tenantQuery(c.tenantOr(tenant)), out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("stats: %w", err)
	}
	return resp, nil
}

func tenantQuery(tenant string) url.Values {
	q := url.Values{}
	if tenant != "" {
		q.Set("tenant", tenant)
	}
	return q
}

// Usage reads the model usage totals per component and model
// (GET /v1/usage): tenant "" is every tenant for an admin key or a server
// without keys, a tenant key's own otherwise; since 0 is everything.
func (c *Client) Usage(ctx context.Context, tenant string, since time.Duration) ([]api.UsageTotal, error) {
	q := tenantQuery(tenant)
	if since > 0 {
		q.Set("since", since.String())
	}
	var resp api.UsageResponse
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/usage", query: q, out: &resp, idempotent: true}); err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	return resp.Totals, nil
}
