package client

import (
	"context"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Remember is a memory to learn, flat: what LearnRequest says with its
// MemoryInput spelt out, so that
//
//	c.Remember(ctx, client.Remember{Content: "Alice prefers tabs"})
//
// needs no other import. Empty fields take the server's defaults (the
// client's tenant and namespace first).
type Remember struct {
	ID        string // the event id; filled in when empty, so a resend is the same event
	Tenant    string
	Namespace string
	Subject   string
	Channel   string
	SessionID string
	// Key names a fact that a later memory with the same key supersedes,
	// e.g. "editor/theme".
	Key     string
	Content string // required
	Domain  string
	// Type and Kind classify the memory ("fact", "preference", ...;
	// "semantic", "episodic", "procedural"); empty lets the server infer.
	Type       memory.Type
	Kind       memory.Kind
	Importance *float64
	Tags       []string
	Scope      []string
	// Wait answers once the memory is stored, for at most Timeout (0: the
	// server's default, 10s; at most 30s).
	Wait    bool
	Timeout time.Duration
}

// LearnRequest is r as the body of POST /v1/memories.
func (r Remember) LearnRequest() LearnRequest {
	req := LearnRequest{ID: r.ID, Tenant: r.Tenant, Namespace: r.Namespace, Subject: r.Subject, Channel: r.Channel,
		SessionID: r.SessionID, Wait: r.Wait,
		MemoryInput: memory.MemoryInput{Key: r.Key, Content: r.Content, Domain: r.Domain, Type: r.Type, Kind: r.Kind,
			Importance: r.Importance, Tags: r.Tags, Scope: r.Scope}}
	if r.Timeout > 0 {
		req.Timeout = r.Timeout.String()
	}
	return req
}

// Remember learns a memory given flat (see Learn): the same request,
// retried the same way.
func (c *Client) Remember(ctx context.Context, r Remember) (LearnResponse, error) {
	return c.Learn(ctx, r.LearnRequest())
}
