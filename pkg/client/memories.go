package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// ListOptions select a page of GET /v1/memories.
type ListOptions struct {
	Tenant    string
	Namespace string // "" = every namespace (the client's default is not applied)
	Domain    string
	Limit     int    // 1-1000, 0 = the server's default (100)
	After     string // the previous page's Next
	Archived  bool   // include archived memories
	// Superseded includes memories a newer one replaced.
	Superseded bool
	// AsOf lists what was true then (valid time), KnownAt what Recollect
	// knew then (record time); zero: current memories.
	AsOf, KnownAt time.Time
	// Layer, Type, Kind and Subject narrow to one value each ("" = any).
	Layer, Type, Kind, Subject string
	// Quarantined is "" (leave quarantined memories out), "true" (include
	// them) or "only" (list them alone: the review queue).
	Quarantined string
}

// ListMemories returns one page of the tenant's memories in id order; Next
// is set when there are more.
func (c *Client) ListMemories(ctx context.Context, opts ListOptions) (api.ListResponse, error) {
	q := tenantQuery(c.tenantOr(opts.Tenant))
	if opts.Namespace != "" {
		q.Set("namespace", opts.Namespace)
	}
	if opts.Domain != "" {
		q.Set("domain", opts.Domain)
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	if opts.After != "" {
		q.Set("after", opts.After)
	}
	if opts.Archived {
		q.Set("archived", "true")
	}
	if opts.Superseded {
		q.Set("superseded", "true")
	}
	for name, v := range map[string]string{"layer": opts.Layer, "type": opts.Type, "kind": opts.Kind, "subject": opts.Subject, "quarantined": opts.Quarantined} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !opts.AsOf.IsZero() {
		q.Set("as_of", opts.AsOf.Format(time.RFC3339Nano))
	}
	if !opts.KnownAt.IsZero() {
		q.Set("known_at", opts.KnownAt.Format(time.RFC3339Nano))
	}
	var resp api.ListResponse
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/memories", query: q, out: &resp, idempotent: true}); err != nil {
		return resp, fmt.Errorf("list memories: %w", err)
	}
	return resp, nil
}

// Memories iterates over every memory opts selects, page by page (opts.After
// is where it starts). Iteration stops at the first error, which it yields.
func (c *Client) Memories(ctx context.Context, opts ListOptions) iter.Seq2[memory.Memory, error] {
	return func(yield func(memory.Memory, error) bool) {
		for {
			page, err := c.ListMemories(ctx, opts)
			if err != nil {
				yield(memory.Memory{}, err)
				return
			}
			for _, m := range page.Memories {
				if !yield(m, nil) {
					return
				}
			}
			if page.Next == "" {
				return
			}
			opts.After = page.Next
		}
	}
}

// GetMemory reads one memory (GET /v1/memories/{id}); a missing one is
// ErrNotFound.
func (c *Client) GetMemory(ctx context.Context, tenant, id string) (memory.Memory, error) {
	var m memory.Memory
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/memories/" + url.PathEscape(id), query: tenantQuery(c.tenantOr(tenant)), out: &m, idempotent: true}); err != nil {
		return m, fmt.Errorf("get memory %s: %w", id, err)
	}
	return m, nil
}

// DeleteMemory deletes one memory (DELETE /v1/memories/{id}); a missing one
// is ErrNotFound.
func (c *Client) DeleteMemory(ctx context.Context, tenant, id string) error {
	if err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/memories/" + url.PathEscape(id), query: tenantQuery(c.tenantOr(tenant)), idempotent: true}); err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	return nil
}

// PurgeSubject hard-deletes everything the tenant holds about a subject
// (DELETE /v1/memories?subject=): its memories, archived and superseded
// ones too, and every memory derived from them. It answers how many were
// deleted; a subject with no memories is 0, not an error.
func (c *Client) PurgeSubject(ctx context.Context, tenant, subject string) (int, error) {
	resp, err := c.Purge(ctx, tenant, subject)
	return resp.Deleted, err
}

// Purge is PurgeSubject with the whole answer: the count and the erasure
// receipt, which says per place (store files, audit log, streams, topics,
// caches) what was erased; read it again with Erasure until Done.
func (c *Client) Purge(ctx context.Context, tenant, subject string) (api.DeleteResponse, error) {
	q := tenantQuery(c.tenantOr(tenant))
	q.Set("subject", subject)
	var resp api.DeleteResponse
	if err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/memories", query: q, out: &resp, idempotent: true}); err != nil {
		return api.DeleteResponse{}, fmt.Errorf("purge subject %q: %w", subject, err)
	}
	return resp, nil
}

// Erasure reads a purge's receipt (GET /v1/erasures/{id}); an unknown id
// is ErrNotFound.
func (c *Client) Erasure(ctx context.Context, tenant, id string) (api.ErasureReceipt, error) {
	var rc api.ErasureReceipt
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/erasures/" + url.PathEscape(id), query: tenantQuery(c.tenantOr(tenant)), out: &rc, idempotent: true}); err != nil {
		return api.ErasureReceipt{}, fmt.Errorf("read erasure %s: %w", id, err)
	}
	return rc, nil
}

// WaitErasure reads the receipt every interval until it is done or ctx
// ends (then the last receipt read, and ctx's error).
func (c *Client) WaitErasure(ctx context.Context, tenant string, rc api.ErasureReceipt, interval time.Duration) (api.ErasureReceipt, error) {
	for !rc.Done() {
		select {
		case <-ctx.Done():
			return rc, fmt.Errorf("wait for erasure %s: %w", rc.ID, ctx.Err())
		case <-time.After(interval):
		}
		next, err := c.Erasure(ctx, tenant, rc.ID)
		if err != nil {
			return rc, err
		}
		rc = next
	}
	return rc, nil
}
