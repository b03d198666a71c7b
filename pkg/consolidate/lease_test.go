package consolidate

import (
	"context"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/locktest"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
)

// renewSignal is a locker whose leases report each renewal.
type renewSignal struct {
	lock.Locker
	renewed chan struct{}
}

func (l *renewSignal) Acquire(ctx context.Context, key string, ttl time.Duration) (lock.Lease, error) {
	le, err := l.Locker.Acquire(ctx, key, ttl)
	if err != nil {
		return nil, err
	}
	return &signalLease{Lease: le, renewed: l.renewed}, nil
}

type signalLease struct {
	lock.Lease
	renewed chan struct{}
}

func (l *signalLease) Renew(ctx context.Context, ttl time.Duration) error {
	err := l.Lease.Renew(ctx, ttl)
	if err == nil {
		select {
		case l.renewed <- struct{}{}:
		default:
		}
	}
	return err
}

// TestEpochPhaseLongerThanLease: one phase of an epoch lasting several
// times the lease's ttl (here the lock's clock moves two and a half ttls
// while the epoch reads the tenant) no longer loses the lease: it is
// renewed in the background, so the epoch completes. Before, the lease
// was renewed between phases only; on a starved machine every try of a
// big tenant's epoch lost it and started again (TestExplicitFactsSurviveEpochs
// under load). The clock moves half a ttl after each renewal seen, or after
// ten seconds without one, so the test does not depend on this machine's
// speed.
func TestEpochPhaseLongerThanLease(t *testing.T) {
	f, _ := explicitFixture(t, "The user asked to remember: the staging database is db-stage-2.")
	clock := locktest.NewClock()
	renewed := make(chan struct{}, 1)
	f.locks = &renewSignal{Locker: memlock.New(memlock.WithClock(clock.Now)), renewed: renewed}
	f.cfg.LeaseTTL = time.Second
	_ = f.c.Stop(context.Background())
	f.start(t)
	ttl := f.cfg.LeaseTTL
	f.st.mu.Lock()
	f.st.afterScroll = func() {
		for range 5 {
			select {
			case <-renewed:
			case <-time.After(10 * time.Second):
			}
			clock.Advance(ttl / 2)
		}
	}
	f.st.mu.Unlock()
	if _, err := f.c.Epoch(t.Context(), tenant, "long-phase", nil); err != nil {
		t.Fatalf("an epoch with a phase longer than its lease failed: %v", err)
	}
}
