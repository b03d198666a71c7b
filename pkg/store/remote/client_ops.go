package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Get returns the memory, or an error wrapping store.ErrNotFound.
func (c *Client) Get(ctx context.Context, tenant, id string) (memory.Memory, error) {
	var res getResult
	if err := c.call(ctx, opGet, getRequest{Tenant: tenant, ID: id}, &res); err != nil {
		return memory.Memory{}, err
	}
	return res.Memory.memory(), nil
}

// Search runs the query on the server; a reply over the max payload comes
// back in chunks.
func (c *Client) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	var res searchResult
	req := searchRequest{Tenant: q.Tenant, Vector: q.Vector, K: q.K, Filter: q.Filter, Chunks: q.Chunks, Terms: q.Terms}
	if err := c.call(ctx, opSearch, req, &res); err != nil {
		return nil, err
	}
	return res.hits(), nil
}

// hits decodes a search reply.
func (res searchResult) hits() []store.Hit {
	if res.Hits == nil {
		return nil // as the store said: null, not []
	}
	hits := make([]store.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = store.Hit{Memory: h.Memory.memory(), Score: float64(h.Score), Terms: h.Terms}
	}
	return hits
}

// SearchText runs the lexical query on the server.
func (c *Client) SearchText(ctx context.Context, q store.TextQuery) ([]store.Hit, error) {
	var res searchResult
	req := searchTextRequest{Tenant: q.Tenant, Text: q.Text, K: q.K, Filter: q.Filter}
	if err := c.call(ctx, opSearchText, req, &res); err != nil {
		return nil, err
	}
	return res.hits(), nil
}

// Scroll fetches pages of memories in id order, each request asking for the
// ids after the last one seen, and stops at the first error of fn (returned
// as is).
func (c *Client) Scroll(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	return c.scroll(ctx, tenant, f, false, fn)
}

var _ store.MetaScroller = (*Client)(nil)

// ScrollMeta is Scroll without the vectors (store.MetaScroller): the server
// leaves them out of its pages.
func (c *Client) ScrollMeta(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory) error) error {
	return c.scroll(ctx, tenant, f, true, fn)
}

func (c *Client) scroll(ctx context.Context, tenant string, f store.Filter, noVectors bool, fn func(memory.Memory) error) error {
	return c.scrollRev(ctx, scrollRequest{Tenant: tenant, Filter: f, Limit: c.cfg.pageSize, NoVectors: noVectors},
		func(m memory.Memory, _ uint64) error { return fn(m) })
}

var _ store.RevisionScroller = (*Client)(nil)

// ScrollRevisions is ScrollMeta with the server store's revisions
// (store.RevisionScroller). From a server whose store has none (Qdrant),
// or one that predates them, the revisions are 0: writes with them are
// plain.
func (c *Client) ScrollRevisions(ctx context.Context, tenant string, f store.Filter, fn func(memory.Memory, uint64) error) error {
	err := c.scrollRev(ctx, scrollRequest{Tenant: tenant, Filter: f, Limit: c.cfg.pageSize, NoVectors: true, Revisions: true}, fn)
	var re *remoteError
	if errors.As(err, &re) && (re.code == codeUnsupported || re.code == codeBadRequest) {
		return c.scroll(ctx, tenant, f, true, func(m memory.Memory) error { return fn(m, 0) })
	}
	return err
}

func (c *Client) scrollRev(ctx context.Context, req scrollRequest, fn func(memory.Memory, uint64) error) error {
	for {
		var page scrollResult
		if err := c.call(ctx, opScroll, req, &page); err != nil {
			return err
		}
		if req.Revisions && len(page.Revisions) != len(page.Memories) {
			return fmt.Errorf("remote store scroll: %d revisions for %d memories", len(page.Revisions), len(page.Memories))
		}
		for i, w := range page.Memories {
			m := w.memory()
			if req.NoVectors {
				m.Vector, m.ChunkVectors = nil, nil
			}
			var rev uint64
			if req.Revisions {
				rev = page.Revisions[i]
			}
			if err := fn(m, rev); err != nil {
				return err
			}
		}
		if !page.More || len(page.Memories) == 0 {
			return nil
		}
		req.After = page.Memories[len(page.Memories)-1].ID
	}
}

// Count returns how many memories of the tenant match f.
func (c *Client) Count(ctx context.Context, tenant string, f store.Filter) (int, error) {
	var res countResult
	if err := c.call(ctx, opCount, countRequest{Tenant: tenant, Filter: f}, &res); err != nil {
		return 0, err
	}
	return res.Count, nil
}

var _ store.SessionLister = (*Client)(nil)

// Sessions lists the tenant's sessions on the server (store.SessionLister).
// From a server whose store cannot, or that predates the op, the error
// wraps errors.ErrUnsupported.
func (c *Client) Sessions(ctx context.Context, tenant string, f store.Filter) ([]store.SessionSpan, error) {
	var res sessionsResult
	err := c.call(ctx, opSessions, sessionsRequest{Tenant: tenant, Filter: f}, &res)
	if unsupported(err) {
		return nil, fmt.Errorf("list sessions of tenant %s: %w (%w)", tenant, errors.ErrUnsupported, err)
	}
	if err != nil {
		return nil, err
	}
	if res.Sessions == nil {
		res.Sessions = []store.SessionSpan{}
	}
	return res.Sessions, nil
}

// Tenants lists the tenants that hold memories.
func (c *Client) Tenants(ctx context.Context) ([]string, error) {
	var res tenantsResult
	if err := c.call(ctx, opTenants, struct{}{}, &res); err != nil {
		return nil, err
	}
	return res.Tenants, nil
}

// Compact asks the shared store to rewrite its files without the bytes of
// deleted memories (store.Compactor); a store that cannot answers an error.
func (c *Client) Compact(ctx context.Context) error {
	return c.call(ctx, opCompact, struct{}{}, nil)
}

var _ store.ConditionalWriter = (*Client)(nil)

// GetRevision is Get with the server store's revision of the memory; from
// a server whose store does not write conditionally (Qdrant) the revision
// is 0, and writes with it are plain.
func (c *Client) GetRevision(ctx context.Context, tenant, id string) (memory.Memory, uint64, error) {
	var res getResult
	err := c.call(ctx, opGetRevision, getRequest{Tenant: tenant, ID: id}, &res)
	if unsupported(err) {
		m, err := c.Get(ctx, tenant, id)
		return m, 0, err
	}
	if err != nil {
		return memory.Memory{}, 0, err
	}
	return res.Memory.memory(), res.Revision, nil
}

// UpsertIf is a conditional Upsert, checked and applied by the server as
// one request: a batch too big for one request is refused (split it).
func (c *Client) UpsertIf(ctx context.Context, mems []memory.Memory, revs []uint64) error {
	err := c.writeIf(ctx, opUpsertIf, "", mems, revs)
	if unsupported(err) {
		return c.Upsert(ctx, mems)
	}
	return err
}

// UpdatePayloadIf is a conditional UpdatePayload, as one request.
func (c *Client) UpdatePayloadIf(ctx context.Context, tenant string, mems []memory.Memory, revs []uint64) error {
	if err := store.CheckPayloadBatch(tenant, mems); err != nil {
		return fmt.Errorf("remote store: %w", err)
	}
	payload := make([]memory.Memory, len(mems))
	for i, m := range mems {
		m.Vector, m.ChunkVectors = nil, nil
		payload[i] = m
	}
	err := c.writeIf(ctx, opPayloadIf, tenant, payload, revs)
	if unsupported(err) {
		return c.UpdatePayload(ctx, tenant, mems)
	}
	return err
}

func (c *Client) writeIf(ctx context.Context, op, tenant string, mems []memory.Memory, revs []uint64) error {
	if len(revs) != len(mems) {
		return fmt.Errorf("remote store %s: %d revisions for %d memories: %w", op, len(revs), len(mems), memory.ErrInvalid)
	}
	body, err := json.Marshal(writeIfRequest{Tenant: tenant, Memories: toWireAll(mems), Revisions: revs})
	if err != nil {
		return fmt.Errorf("remote store %s: encode request: %w", op, err)
	}
	if limit := bodyLimit(c.nc); len(body) > limit {
		return fmt.Errorf("remote store %s: %d memories encode to %d bytes, over the %d a conditional write sends in one request: %w",
			op, len(mems), len(body), limit, memory.ErrInvalid)
	}
	return c.send(ctx, op, body, nil)
}

// unsupported reports a server that does not know the op or whose store
// cannot serve it.
func unsupported(err error) bool {
	var re *remoteError
	return errors.As(err, &re) && re.code == codeUnsupported
}
