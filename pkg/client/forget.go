package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// ForgetRequest names what to forget: one memory by ID, every memory with
// Key (normalised like the server does: "User Name" = "user-name"), or
// everything about a Subject (PurgeSubject). Exactly one of them is set.
type ForgetRequest struct {
	Tenant string
	// Namespace limits a forget by key to one namespace; empty takes the
	// client's default, and without one every namespace.
	Namespace string
	ID        string
	Key       string
	Subject   string
}

// ForgetResponse lists the ids deleted by id or key, and counts them; a
// purge of a subject only counts.
type ForgetResponse struct {
	Deleted []string `json:"deleted"`
	Count   int      `json:"count"`
	// Receipt is a subject purge's erasure receipt.
	Receipt *api.ErasureReceipt `json:"receipt,omitempty"`
}

// Forget deletes a memory by id, every memory with a key, or everything
// about a subject. By key it lists the tenant's memories, archived and
// superseded ones too (see the package documentation for the cost), and
// deletes the matches; none matching is ErrNotFound. A subject is purged
// by the server, derived memories included; none matching is a count of 0.
func (c *Client) Forget(ctx context.Context, req ForgetRequest) (ForgetResponse, error) {
	given := 0
	for _, v := range []string{req.ID, req.Key, req.Subject} {
		if v != "" {
			given++
		}
	}
	switch {
	case given != 1:
		return ForgetResponse{}, &memory.FieldError{Field: "id", Reason: "or key or subject is required, exactly one"}
	case req.ID != "":
		if err := c.DeleteMemory(ctx, req.Tenant, req.ID); err != nil {
			return ForgetResponse{}, fmt.Errorf("forget: %w", err)
		}
		return ForgetResponse{Deleted: []string{req.ID}, Count: 1}, nil
	case req.Subject != "":
		resp, err := c.Purge(ctx, req.Tenant, req.Subject)
		if err != nil {
			return ForgetResponse{}, fmt.Errorf("forget: %w", err)
		}
		return ForgetResponse{Deleted: []string{}, Count: resp.Deleted, Receipt: resp.Receipt}, nil
	}
	key := memory.NormalizeKey(req.Key)
	if key == "" {
		return ForgetResponse{}, &memory.FieldError{Field: "key", Reason: "is empty once normalised"}
	}
	// Collect first, then delete, so that the listing pages over a stable set.
	var ids []string
	for m, err := range c.Memories(ctx, ListOptions{Tenant: req.Tenant, Namespace: c.namespaceOr(req.Namespace), Limit: 1000, Archived: true, Superseded: true}) {
		if err != nil {
			return ForgetResponse{}, fmt.Errorf("forget key %q: %w", key, err)
		}
		if m.Key == key {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return ForgetResponse{}, fmt.Errorf("forget key %q: no memory has it: %w", key, ErrNotFound)
	}
	var resp ForgetResponse
	for _, id := range ids {
		err := c.DeleteMemory(ctx, req.Tenant, id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile: forgotten all the same
		}
		if err != nil {
			return resp, fmt.Errorf("forget key %q: %w", key, err)
		}
		resp.Deleted = append(resp.Deleted, id)
	}
	resp.Count = len(resp.Deleted)
	return resp, nil
}
