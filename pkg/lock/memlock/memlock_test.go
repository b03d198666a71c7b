package memlock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/locktest"
)

func newFake() (*Locker, *locktest.Clock) {
	clock := locktest.NewClock()
	return New(WithClock(clock.Now)), clock
}

func TestAcceptance(t *testing.T) {
	locktest.Run(t, func(t *testing.T) (lock.Locker, locktest.Advance) {
		l, clock := newFake()
		return l, clock.Advance
	})
}

// TestExpiryBoundary pins the exact instant a lease ends: live just before
// its ttl, gone at it.
func TestExpiryBoundary(t *testing.T) {
	ctx := context.Background()
	l, clock := newFake()
	le, err := l.Acquire(ctx, "k", 10*time.Second)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	clock.Advance(8 * time.Second)
	if err := le.Renew(ctx, 10*time.Second); err != nil {
		t.Fatalf("renew at 8s: %v", err)
	}
	clock.Advance(10*time.Second - time.Nanosecond) // 1ns before the renewed end
	if _, err := l.Acquire(ctx, "k", time.Second); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("acquire 1ns before renewed expiry: %v, want ErrHeld", err)
	}
	clock.Advance(time.Nanosecond)
	if _, err := l.Acquire(ctx, "k", time.Second); err != nil {
		t.Fatalf("acquire at renewed expiry: %v", err)
	}
}

// TestSweepDropsAbandonedLeases checks expired leases that nobody takes over
// do not accumulate.
func TestSweepDropsAbandonedLeases(t *testing.T) {
	ctx := context.Background()
	l, clock := newFake()
	for i := range 10 * minSweep {
		if _, err := l.Acquire(ctx, fmt.Sprintf("abandoned/%d", i), time.Second); err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		clock.Advance(time.Second) // each lease expires before the next is taken
	}
	l.mu.Lock()
	n := len(l.leases)
	l.mu.Unlock()
	if n > minSweep {
		t.Fatalf("%d leases kept after %d abandoned ones, want at most %d", n, 10*minSweep, minSweep)
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	locktest.Bench(b, New())
}
