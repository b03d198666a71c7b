package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
)

// reindexPoll is how often `recollect reindex --wait` reads the state.
const reindexPoll = 500 * time.Millisecond

// reindexWait is how waitReindex waits.
type reindexWait struct {
	limit time.Duration // the whole wait; 0: until done, failed or cancelled
	call  time.Duration // one status read
	every time.Duration // between reads
	w     io.Writer     // where the bar is drawn, when a terminal
}

// waitReindex polls the tenant's reindex state until request id is done
// (its state returned) or failed (an error naming the reason). A newer
// request superseding id is followed instead: it moves the same memories.
func waitReindex(ctx context.Context, c *client.Client, tenant, id string, o reindexWait) (client.ReindexStatus, error) {
	if o.limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.limit)
		defer cancel()
	}
	bar := newProgress(o.w, -1, "reindex "+tenant+": queued", "memories")
	defer bar.End()
	tick := time.NewTicker(o.every)
	defer tick.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, o.call)
		st, err := c.ReindexStatus(cctx, tenant)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return st, fmt.Errorf("wait for reindex %s of tenant %s: %w", id, tenant, ctx.Err())
			}
			return st, err
		}
		if st.ID != id {
			id = st.ID
			bar.Describe("reindex " + tenant + " (as " + id + "): " + st.State)
		} else {
			bar.Describe("reindex " + tenant + ": " + st.State)
		}
		if st.Total > 0 {
			bar.SetTotal(st.Total)
		}
		bar.Set(st.Done)
		switch st.State {
		case "done":
			return st, nil
		case "failed":
			return st, fmt.Errorf("reindex %s of tenant %s failed: %s", st.ID, tenant, st.Error)
		}
		select {
		case <-ctx.Done():
			err := ctx.Err()
			if errors.Is(err, context.DeadlineExceeded) {
				return st, fmt.Errorf("wait for reindex %s of tenant %s: still %s (%d of %d) after %s", id, tenant, st.State, st.Done, st.Total, o.limit)
			}
			return st, fmt.Errorf("wait for reindex %s of tenant %s: %w", id, tenant, err)
		case <-tick.C:
		}
	}
}
