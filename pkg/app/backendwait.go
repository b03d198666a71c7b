package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	auditch "github.com/recollect-dev/recollect/pkg/auditlog/clickhouse"
)

// Backoff of a backend that is down at start: the first retry after
// waitMinBackoff, doubling up to waitMaxBackoff; each attempt is bounded
// by waitAttemptTimeout.
const (
	waitMinBackoff     = 500 * time.Millisecond
	waitMaxBackoff     = 30 * time.Second
	waitAttemptTimeout = 5 * time.Second
)

// backendWaits tracks the backends (Redis, ClickHouse) a process needs but
// did not reach yet. A worker starts without them, /readyz names each
// until it answered once, and a background loop retries it with capped
// backoff; a backend that goes down later is handled where it is used
// (503 with Retry-After, buffered usage, retried messages).
type backendWaits struct {
	mu      sync.Mutex
	pending map[string]error // backend name -> last error, while not reached
	order   []string
}

// err names every backend still waited for, or is nil.
func (w *backendWaits) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parts []string
	for _, name := range w.order {
		if err, ok := w.pending[name]; ok {
			parts = append(parts, fmt.Sprintf("waiting for %s: %v", name, err))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(parts, "; "))
}

func (w *backendWaits) set(name string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[string]error{}
	}
	if err == nil {
		delete(w.pending, name)
		return
	}
	if _, known := w.pending[name]; !known && !containsString(w.order, name) {
		w.order = append(w.order, name)
	}
	w.pending[name] = err
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// waitForBackend marks name as waited for and retries reach until it
// succeeds once or the app stops: at once, then after a backoff doubling
// from waitMinBackoff to waitMaxBackoff on the app's clock (a.after).
func (a *App) waitForBackend(name string, reach func(ctx context.Context) error) {
	a.waits.set(name, fmt.Errorf("not reached yet"))
	a.waitGroup.Add(1)
	go func() {
		defer a.waitGroup.Done()
		backoff := time.Duration(0)
		for attempt := 1; ; attempt++ {
			ctx, cancel := context.WithTimeout(a.waitCtx, waitAttemptTimeout)
			err := reach(ctx)
			cancel()
			if a.waitCtx.Err() != nil {
				return
			}
			if err == nil {
				a.waits.set(name, nil)
				if attempt > 1 {
					a.log.Info("backend reachable", "backend", name, "attempts", attempt)
				}
				return
			}
			backoff = min(max(2*backoff, waitMinBackoff), waitMaxBackoff)
			a.waits.set(name, fmt.Errorf("%w (attempt %d, next in %s)", err, attempt, backoff))
			if attempt == 1 {
				a.log.Warn("backend unreachable at start; not ready until it answers", "backend", name, "retry_in", backoff, "err", err)
			}
			select {
			case <-a.waitCtx.Done():
				return
			case <-a.after(backoff):
			}
		}
	}()
}

// stopWaits ends the retry loops of backends not reached yet.
func (a *App) stopWaits() {
	a.waitCancel()
	a.waitGroup.Wait()
}

// lazyAudit is the ClickHouse audit log opened on first use, so the
// consolidator and query processes start while ClickHouse is down; until
// it is open every read and write fails with why.
type lazyAudit struct {
	open func(ctx context.Context) (*auditch.Store, error)

	mu sync.Mutex
	s  *auditch.Store
}

var _ auditlog.Log = (*lazyAudit)(nil)

func (l *lazyAudit) store(ctx context.Context) (*auditch.Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil {
		return l.s, nil
	}
	s, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	l.s = s
	return s, nil
}

// connect opens the log unless it is open.
func (l *lazyAudit) connect(ctx context.Context) error {
	_, err := l.store(ctx)
	return err
}

func (l *lazyAudit) Write(ctx context.Context, entries []auditlog.Entry) error {
	s, err := l.store(ctx)
	if err != nil {
		return err
	}
	return s.Write(ctx, entries)
}

func (l *lazyAudit) Read(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error) {
	s, err := l.store(ctx)
	if err != nil {
		return nil, err
	}
	return s.Read(ctx, q)
}

func (l *lazyAudit) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		return nil
	}
	return l.s.Close()
}

func (l *lazyAudit) Redact(ctx context.Context, tenant string, ids []string) (int, error) {
	s, err := l.store(ctx)
	if err != nil {
		return 0, err
	}
	return s.Redact(ctx, tenant, ids)
}
