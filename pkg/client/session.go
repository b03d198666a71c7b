package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/recollect-dev/recollect/pkg/api"
)

// ContextRequest is the body of POST /v1/context; the server's type.
type ContextRequest = api.ContextRequest

// ContextResponse is the assembled context with its layers and memories.
type ContextResponse = api.ContextResponse

// Context assembles a prompt-ready context (POST /v1/context). A server
// without the endpoint answers 404 (errors.Is(err, ErrNotFound)).
func (c *Client) Context(ctx context.Context, req ContextRequest) (ContextResponse, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	req.Namespace = c.namespaceOr(req.Namespace)
	var resp ContextResponse
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/context", body: req, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("context: %w", err)
	}
	return resp, nil
}

// ResumeRequest selects what GET /v1/resume summarises.
type ResumeRequest struct {
	Tenant    string
	Namespace string
	SessionID string
}

// ResumeTopic is one entry of the resume's topic index; drill down with
// Topics(ids).
type ResumeTopic = api.TopicSummary

// ResumeResponse is what an agent needs to pick up where it left off.
type ResumeResponse = api.ResumeResponse

// Resume fetches the session-recovery summary (GET /v1/resume). A server
// without the endpoint answers 404 (errors.Is(err, ErrNotFound)).
func (c *Client) Resume(ctx context.Context, req ResumeRequest) (ResumeResponse, error) {
	q := url.Values{}
	for k, v := range map[string]string{"tenant": c.tenantOr(req.Tenant), "namespace": c.namespaceOr(req.Namespace), "session_id": req.SessionID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var resp ResumeResponse
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/resume", query: q, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("resume: %w", err)
	}
	return resp, nil
}
