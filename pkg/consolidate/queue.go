package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// QueueBucket keeps each tenant's pair queue: the merge, reconcile and
// review pairs an epoch found but could not ask the LLM about within its
// budget (--consolidate-max-pair-calls), or whose call failed. The next
// epoch asks about them first, oldest first. One value per tenant.
const QueueBucket = "recollect_pair_queue"

// Pair kinds.
const (
	pairReconcile = "reconcile"
	pairMerge     = "merge"
	// pairReview is a same-key supersession the rule already applied: the
	// model may explain it or refuse it with a reason (keep both), never
	// skip it.
	pairReview = "review"
)

// queued is a pair as the queue keeps it: by id, so it survives a
// restart.
type queued struct {
	Kind  string  `json:"k"`
	Newer string  `json:"n"`
	Older string  `json:"o"`
	Sim   float64 `json:"s,omitempty"`
	// Since is the epoch that found the pair; the queue is ordered by it.
	Since int64 `json:"e"`
	// Tries counts failed LLM calls about the pair.
	Tries int `json:"t,omitempty"`
	// Done is the epoch that asked about it: dropped once that epoch has
	// committed (a later epoch runs), asked again if it is resumed.
	Done int64 `json:"d,omitempty"`
	// Took is what the newer took over from the older (a review pair).
	Took *took `json:"x,omitempty"`
}

func (q queued) key() string { return q.Kind + "\x00" + q.Newer + "\x00" + q.Older }

// maxPairTries is how many failed calls a queued pair gets; then it is
// refused in the audit log (both memories stay current) and leaves the
// queue.
const maxPairTries = 5

func (c *Consolidator) openQueue(ctx context.Context) error {
	kv, err := c.bus.JetStream().CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: QueueBucket,
		Description: "consolidation pairs carried to the next epoch, per tenant", Storage: jetstream.FileStorage})
	if err != nil {
		return fmt.Errorf("open pair queue bucket: %w", err)
	}
	c.queue = kv
	return nil
}

// loadQueue reads a tenant's queue, oldest first.
func (c *Consolidator) loadQueue(ctx context.Context, tenant string) ([]queued, error) {
	if c.queue == nil {
		return nil, nil
	}
	e, err := c.queue.Get(ctx, tenant)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the pair queue of %s: %w", tenant, err)
	}
	var q []queued
	if err := json.Unmarshal(e.Value(), &q); err != nil {
		return nil, fmt.Errorf("decode the pair queue of %s: %w", tenant, err)
	}
	return q, nil
}

// saveQueue writes a tenant's queue and its depth.
func (c *Consolidator) saveQueue(ctx context.Context, tenant string, q []queued) error {
	if c.queue == nil {
		return nil
	}
	data, err := json.Marshal(q)
	if err != nil {
		return err
	}
	if _, err := c.queue.Put(ctx, tenant, data); err != nil {
		return fmt.Errorf("save the pair queue of %s: %w", tenant, err)
	}
	c.setDepth(tenant, depth(q))
	return nil
}

// depth counts the pairs still waiting (not those asked about by the
// epoch that saved them).
func depth(q []queued) int {
	n := 0
	for _, p := range q {
		if p.Done == 0 {
			n++
		}
	}
	return n
}

func (c *Consolidator) setDepth(tenant string, n int) {
	c.depthMu.Lock()
	defer c.depthMu.Unlock()
	if n == 0 {
		delete(c.depths, tenant)
	} else {
		c.depths[tenant] = n
	}
	total := 0
	for _, d := range c.depths {
		total += d
	}
	c.queueDepth.Set(float64(total))
}

// QueueDepth is how many pairs wait in a tenant's queue for a later
// epoch.
func (c *Consolidator) QueueDepth(ctx context.Context, tenant string) (int, error) {
	q, err := c.loadQueue(ctx, tenant)
	return depth(q), err
}
