package recall

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// TouchRelevance is the relevance above which a recalled memory counts as
// accessed (003 §4.5: only memories with relevance > 0.5 are touched).
const TouchRelevance = 0.5

const (
	// maxTouching bounds the touch batches in flight; beyond it a touch is
	// dropped, since access counts are a ranking hint, not a record to keep.
	maxTouching = 8
	// touchTimeout bounds one batch, detached from the request's context.
	touchTimeout = 10 * time.Second
)

// SetLogger sets where touch failures are logged (discarded by default).
func (r *Recaller) SetLogger(log *slog.Logger) {
	if log != nil {
		r.log = log
	}
}

// Wait blocks until the touches started so far have finished: for shutdown
// and tests.
func (r *Recaller) Wait() { r.touches.Wait() }

// touch records an access on the strong hits of a non-dry recall in the
// background, so the answer does not wait for a write. Each memory is read
// afresh before its counters are bumped and the batch is written with one
// UpdatePayload, which keeps the stored vector and text; on a store that
// writes conditionally the write is conditional on the reads, and a batch
// that lost a race with another writer is read and bumped again, so
// neither the touch nor the other write is lost (on another store the
// other writer's change can be, a race accepted there). A writer that
// changes a memory's text makes the store refuse the touch.
func (r *Recaller) touch(ctx context.Context, tenant string, results []Result) {
	var ids []string
	for _, res := range results {
		if res.Relevance > TouchRelevance {
			ids = append(ids, res.Memory.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	select {
	case r.touching <- struct{}{}:
	default:
		r.log.DebugContext(ctx, "touch dropped", "tenant", tenant, "memories", len(ids))
		return
	}
	r.touches.Add(1)
	go func() {
		defer r.touches.Done()
		defer func() { <-r.touching }()
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), touchTimeout)
		defer cancel()
		if err := r.touchIDs(tctx, tenant, ids); err != nil {
			r.log.WarnContext(tctx, "touch recalled memories", "tenant", tenant, "error", err)
		}
	}()
}

func (r *Recaller) touchIDs(ctx context.Context, tenant string, ids []string) error {
	now := r.now().UTC()
	return store.Retry(ctx, func() error {
		batch := make([]memory.Memory, 0, len(ids))
		revs := make([]uint64, 0, len(ids))
		for _, id := range ids {
			m, rev, err := store.Read(ctx, r.store, tenant, id)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted or merged away since it was ranked
			}
			if err != nil {
				return err
			}
			m.AccessCount++
			if now.After(m.LastAccessed) {
				m.LastAccessed = now
			}
			batch, revs = append(batch, m), append(revs, rev)
		}
		if len(batch) == 0 {
			return nil
		}
		return store.Write(ctx, r.store, tenant, batch, revs, false)
	})
}
