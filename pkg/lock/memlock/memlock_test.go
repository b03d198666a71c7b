package memlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/locktest"
)

// fakeClock is safe for the suite's concurrent goroutines.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newFake() (*Locker, *fakeClock) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	return New(WithClock(clock.now)), clock
}

func TestAcceptance(t *testing.T) {
	locktest.Run(t, func(t *testing.T) (lock.Locker, locktest.Advance) {
		l, clock := newFake()
		return l, clock.advance
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
	clock.advance(8 * time.Second)
	if err := le.Renew(ctx, 10*time.Second); err != nil {
		t.Fatalf("renew at 8s: %v", err)
	}
	clock.advance(10*time.Second - time.Nanosecond) // 1ns before the renewed end
	if _, err := l.Acquire(ctx, "k", time.Second); !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("acquire 1ns before renewed expiry: %v, want ErrHeld", err)
	}
	clock.advance(time.Nanosecond)
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
		clock.advance(time.Second) // each lease expires before the next is taken
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
