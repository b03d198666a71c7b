package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Ingest publishes conversation events (POST /v1/events) in batches of at
// most memory.MaxEventsBatch. Every event needs its client message id: a
// resend of the same id is processed once, which is what makes retries
// safe. Events without a tenant or namespace get the client's defaults.
// The answer sums the batches; on an error, the batches before it were
// accepted.
func (c *Client) Ingest(ctx context.Context, events ...memory.Event) (api.EventsResponse, error) {
	if len(events) == 0 {
		return api.EventsResponse{}, errors.New("ingest: no events")
	}
	out := api.EventsResponse{IDs: make([]string, 0, len(events))}
	for start := 0; start < len(events); start += memory.MaxEventsBatch {
		batch := make([]memory.Event, min(memory.MaxEventsBatch, len(events)-start))
		copy(batch, events[start:])
		for i := range batch {
			batch[i].Tenant = c.tenantOr(batch[i].Tenant)
			batch[i].Namespace = c.namespaceOr(batch[i].Namespace)
		}
		var resp api.EventsResponse
		err := c.do(ctx, call{method: http.MethodPost, path: "/v1/events", body: map[string]any{"events": batch}, out: &resp, idempotent: true})
		if err != nil {
			return out, fmt.Errorf("ingest events %d-%d of %d: %w", start, start+len(batch)-1, len(events), err)
		}
		out.Accepted += resp.Accepted
		out.IDs = append(out.IDs, resp.IDs...)
	}
	return out, nil
}
