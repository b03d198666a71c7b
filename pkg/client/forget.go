package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// ForgetRequest names what to forget: one memory by ID, or every memory
// with Key (normalised like the server does: "User Name" = "user-name").
// Exactly one of ID and Key is set.
type ForgetRequest struct {
	Tenant string
	// Namespace limits a forget by key to one namespace; empty takes the
	// client's default, and without one every namespace.
	Namespace string
	ID        string
	Key       string
}

// ForgetResponse lists the ids deleted.
type ForgetResponse struct {
	Deleted []string `json:"deleted"`
}

// Forget deletes a memory by id, or every memory with a key. By key it
// lists the tenant's memories (see the package documentation for the
// cost) and deletes the matches; none matching is ErrNotFound.
func (c *Client) Forget(ctx context.Context, req ForgetRequest) (ForgetResponse, error) {
	switch {
	case (req.ID == "") == (req.Key == ""):
		return ForgetResponse{}, &memory.FieldError{Field: "id", Reason: "or key is required, not both"}
	case req.ID != "":
		if err := c.DeleteMemory(ctx, req.Tenant, req.ID); err != nil {
			return ForgetResponse{}, fmt.Errorf("forget: %w", err)
		}
		return ForgetResponse{Deleted: []string{req.ID}}, nil
	}
	key := memory.NormalizeKey(req.Key)
	if key == "" {
		return ForgetResponse{}, &memory.FieldError{Field: "key", Reason: "is empty once normalised"}
	}
	// Collect first, then delete, so that the listing pages over a stable set.
	var ids []string
	for m, err := range c.Memories(ctx, ListOptions{Tenant: req.Tenant, Namespace: c.namespaceOr(req.Namespace), Limit: 1000, Archived: true}) {
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
	return resp, nil
}
