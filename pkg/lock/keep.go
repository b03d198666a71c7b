package lock

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Keep renews l every third of ttl, in the background, until stop is
// called or ctx ends, so that work longer than ttl keeps its lease however
// long any one step of it takes. It returns a context derived from ctx that
// is cancelled when a renewal fails — the lease expired or another owner
// took it, who may now do the same work — with the renewal's error (which
// wraps ErrLost) as its cause (context.Cause). stop ends the renewals and
// waits for them; it does not release the lease.
func Keep(ctx context.Context, l Lease, ttl time.Duration) (kept context.Context, stop func()) {
	kctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(max(ttl/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-kctx.Done():
				return
			case <-t.C:
				if err := l.Renew(kctx, ttl); err != nil {
					cancel(fmt.Errorf("renew lease %s: %w", l.Key(), err))
					return
				}
			}
		}
	})
	var once sync.Once
	return kctx, func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			cancel(nil)
		})
	}
}
