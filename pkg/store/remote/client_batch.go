package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Upsert sends the memories in as few requests as the max payload allows,
// in order, so a later duplicate id still wins. Split batches are validated
// up front so an invalid memory writes nothing, as in one request; a
// transport error part-way may leave earlier parts written, which a retry
// (upsert is idempotent) completes.
func (c *Client) Upsert(ctx context.Context, mems []memory.Memory) error {
	items := make([][]byte, len(mems))
	for i, m := range mems {
		b, err := json.Marshal(toWire(m))
		if err != nil {
			return fmt.Errorf("remote store upsert: encode memories[%d] %s: %w", i, m.ID, err)
		}
		items[i] = b
	}
	const head, tail = `{"memories":[`, `]}`
	parts, err := pack(items, bodyLimit(c.nc)-len(head)-len(tail))
	if err != nil {
		return fmt.Errorf("remote store upsert: %w", err)
	}
	if len(parts) > 1 {
		if err := precheck(mems); err != nil {
			return fmt.Errorf("remote store upsert: %w", err)
		}
	}
	for _, p := range parts {
		if err := c.send(ctx, opUpsert, joinJSON(head, items[p[0]:p[1]], tail), nil); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the ids from the tenant, in several requests when they do
// not fit in one.
func (c *Client) Delete(ctx context.Context, tenant string, ids ...string) error {
	items := make([][]byte, len(ids))
	for i, id := range ids {
		b, err := json.Marshal(id)
		if err != nil {
			return fmt.Errorf("remote store delete: encode ids[%d]: %w", i, err)
		}
		items[i] = b
	}
	t, err := json.Marshal(tenant)
	if err != nil {
		return fmt.Errorf("remote store delete: encode tenant: %w", err)
	}
	head, tail := `{"tenant":`+string(t)+`,"ids":[`, `]}`
	parts, err := pack(items, bodyLimit(c.nc)-len(head)-len(tail))
	if err != nil {
		return fmt.Errorf("remote store delete: %w", err)
	}
	for _, p := range parts {
		if err := c.send(ctx, opDelete, joinJSON(head, items[p[0]:p[1]], tail), nil); err != nil {
			return err
		}
	}
	return nil
}

// precheck rejects, before anything is sent, what no store accepts: an
// invalid record, a vector that is not finite, or vectors of one tenant with
// different widths.
func precheck(mems []memory.Memory) error {
	dims := make(map[string]int)
	for i := range mems {
		m := &mems[i]
		if err := m.Validate(); err != nil {
			return fmt.Errorf("memories[%d] %s: %w", i, m.ID, err)
		}
		for j, f := range m.Vector {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return fmt.Errorf("memories[%d] %s: vector[%d] is not a finite number: %w", i, m.ID, j, memory.ErrInvalid)
			}
		}
		if _, err := store.NormalizedChunks(m.Vector, m.ChunkVectors); err != nil {
			return fmt.Errorf("memories[%d] %s: %w", i, m.ID, err)
		}
		if len(m.Vector) == 0 {
			continue
		}
		if d, ok := dims[m.Tenant]; ok && d != len(m.Vector) {
			return fmt.Errorf("memories[%d] %s: vector has %d dimensions, another of tenant %s has %d: %w",
				i, m.ID, len(m.Vector), m.Tenant, d, store.ErrDimension)
		}
		dims[m.Tenant] = len(m.Vector)
	}
	return nil
}

// pack groups consecutive items into [start, end) ranges whose elements,
// comma-separated, fit in limit bytes. It always returns at least one range,
// so an empty call still reaches the server (which may say the store is
// closed, for example).
func pack(items [][]byte, limit int) ([][2]int, error) {
	parts := [][2]int{{0, 0}}
	size := 0
	for i, it := range items {
		if len(it) > limit {
			return nil, fmt.Errorf("item %d is %d bytes encoded, over the %d bytes a request may carry", i, len(it), limit)
		}
		cur := &parts[len(parts)-1]
		add := len(it)
		if cur[1] > cur[0] {
			add++ // comma
		}
		if size+add > limit {
			parts = append(parts, [2]int{i, i})
			cur, size, add = &parts[len(parts)-1], 0, len(it)
		}
		cur[1] = i + 1
		size += add
	}
	return parts, nil
}

func joinJSON(head string, items [][]byte, tail string) []byte {
	var b bytes.Buffer
	n := len(head) + len(tail) + len(items)
	for _, it := range items {
		n += len(it)
	}
	b.Grow(n)
	b.WriteString(head)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteString(tail)
	return b.Bytes()
}
