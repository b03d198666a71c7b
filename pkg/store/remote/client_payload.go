package remote

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// UpdatePayload sends the memories without their vectors (the server keeps
// its own), in as few requests as the max payload allows. Every memory is
// validated before anything is sent; each request is refused or applied
// whole, so only a batch too big for one request can be applied in part,
// which a retry (the update is idempotent) completes.
func (c *Client) UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error {
	if err := store.CheckPayloadBatch(tenant, mems); err != nil {
		return fmt.Errorf("remote store: %w", err)
	}
	items := make([][]byte, len(mems))
	for i, m := range mems {
		m.Vector, m.ChunkVectors = nil, nil
		b, err := json.Marshal(toWire(m))
		if err != nil {
			return fmt.Errorf("remote store update payload: encode memories[%d] %s: %w", i, m.ID, err)
		}
		items[i] = b
	}
	t, err := json.Marshal(tenant)
	if err != nil {
		return fmt.Errorf("remote store update payload: encode tenant: %w", err)
	}
	head, tail := `{"tenant":`+string(t)+`,"memories":[`, `]}`
	parts, err := pack(items, bodyLimit(c.nc)-len(head)-len(tail))
	if err != nil {
		return fmt.Errorf("remote store update payload: %w", err)
	}
	for _, p := range parts {
		if err := c.send(ctx, opPayload, joinJSON(head, items[p[0]:p[1]], tail), nil); err != nil {
			return err
		}
	}
	return nil
}
