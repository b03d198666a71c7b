package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/recollect-dev/recollect/pkg/consolidate"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// What the consolidation benchmark counts around the epochs: the audit
// log's operations and bytes, and the records written to the store.

// countingJournal is the audit log of the benchmark: it encodes every
// operation as JSON without vectors, as a log would write it, and counts
// operations and bytes.
type countingJournal struct {
	mu      sync.Mutex
	ops     int
	byPhase map[string]int
	bytes   int64
}

func (j *countingJournal) Record(_ context.Context, e consolidate.EpochRecord) error {
	var w byteCounter
	enc := json.NewEncoder(&w)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.byPhase == nil {
		j.byPhase = map[string]int{}
	}
	for _, op := range e.Ops {
		op.Before, op.After = withoutVectors(op.Before), withoutVectors(op.After)
		if err := enc.Encode(op); err != nil {
			return fmt.Errorf("encode operation: %w", err)
		}
		j.ops++
		j.byPhase[op.Phase]++
	}
	j.bytes += int64(w)
	return nil
}

func (j *countingJournal) take() (int, map[string]int, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	ops, by, n := j.ops, j.byPhase, j.bytes
	j.ops, j.byPhase, j.bytes = 0, nil, 0
	return ops, by, n
}

func withoutVectors(ms []memory.Memory) []memory.Memory {
	out := make([]memory.Memory, len(ms))
	for i, m := range ms {
		m.Vector = nil
		out[i] = m
	}
	return out
}

type byteCounter int64

func (b *byteCounter) Write(p []byte) (int, error) { *b += byteCounter(len(p)); return len(p), nil }

// countingStore counts the records written through it. It passes the
// store's scroll without vectors through, which an epoch reads the tenant
// by.
type countingStore struct {
	metaStore
	mu      sync.Mutex
	records int
}

type metaStore interface {
	store.Store
	store.MetaScroller
	store.ConditionalWriter
	store.RevisionScroller
}

func (c *countingStore) add(n int) { c.mu.Lock(); c.records += n; c.mu.Unlock() }

func (c *countingStore) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.records
	c.records = 0
	return n
}

func (c *countingStore) Upsert(ctx context.Context, mems []memory.Memory) error {
	err := c.metaStore.Upsert(ctx, mems)
	if err == nil {
		c.add(len(mems))
	}
	return err
}

func (c *countingStore) UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error {
	err := c.metaStore.UpdatePayload(ctx, tenant, mems)
	if err == nil {
		c.add(len(mems))
	}
	return err
}

// The conditional writes an epoch commits with, counted too.

func (c *countingStore) UpsertIf(ctx context.Context, mems []memory.Memory, revs []uint64) error {
	err := c.metaStore.UpsertIf(ctx, mems, revs)
	if err == nil {
		c.add(len(mems))
	}
	return err
}

func (c *countingStore) UpdatePayloadIf(ctx context.Context, tenant string, mems []memory.Memory, revs []uint64) error {
	err := c.metaStore.UpdatePayloadIf(ctx, tenant, mems, revs)
	if err == nil {
		c.add(len(mems))
	}
	return err
}
