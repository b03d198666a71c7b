package bench

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/store/local"
)

// waitIndexes waits until the store trains no index (the fill may have
// left a training running) and returns how long that took, so that
// searches are timed against the finished index, without training beside
// them.
func waitIndexes(ctx context.Context, s *local.Store) (time.Duration, error) {
	begin := time.Now()
	for s.Stats().IndexTraining > 0 {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return time.Since(begin), nil
}

// tenantSlab regenerates tenant t's vectors from vs, contiguous, in
// insertion order, with the memory numbers of its rows.
func tenantSlab(c *corpus, vs storeVectors, t, memories int) ([]float32, []int) {
	var idx []int
	for i := t; i < memories; i += c.tenants {
		idx = append(idx, i)
	}
	slab := make([]float32, len(idx)*corpusDim)
	for r, i := range idx {
		vs.vector(i, slab[r*corpusDim:(r+1)*corpusDim])
	}
	return slab, idx
}

// trainingLog is a slog handler that drops every record but counts the
// store's "index trained" lines and keeps the last one's duration.
type trainingLog struct {
	mu    sync.Mutex
	count int
	last  time.Duration
}

func (l *trainingLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *trainingLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "local store index trained" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "took" {
			l.last = a.Value.Duration()
		}
		return true
	})
	return nil
}

func (l *trainingLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *trainingLog) WithGroup(string) slog.Handler      { return l }

// summary is the trainings counted and the last one's duration in seconds.
func (l *trainingLog) summary() (int, float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, l.last.Seconds()
}
