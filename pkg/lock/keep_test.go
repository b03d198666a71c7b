package lock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/lock/locktest"
	"github.com/recollect-dev/recollect/pkg/lock/memlock"
)

// counted counts a lease's renewals.
type counted struct {
	lock.Lease
	renewals chan struct{}
}

func (c *counted) Renew(ctx context.Context, ttl time.Duration) error {
	err := c.Lease.Renew(ctx, ttl)
	if err == nil {
		c.renewals <- struct{}{}
	}
	return err
}

// TestKeepOutlivesTTL: work lasting many times the lease's ttl keeps it,
// renewed in the background, and nobody else can take it meanwhile; once
// stopped and released the key is free. The lock's clock moves half a ttl
// after each renewal, so the test does not depend on how fast this
// machine runs the keeper.
func TestKeepOutlivesTTL(t *testing.T) {
	clock := locktest.NewClock()
	l := memlock.New(memlock.WithClock(clock.Now))
	const ttl = 30 * time.Millisecond // the keeper renews every 10 ms of real time
	lease, err := l.Acquire(t.Context(), "k", ttl)
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{Lease: lease, renewals: make(chan struct{}, 1)}
	ctx, stop := lock.Keep(t.Context(), c, ttl)
	for range 12 { // six ttls of the lock's time
		select {
		case <-c.renewals:
		case <-time.After(time.Minute):
			t.Fatal("no renewal within a minute")
		}
		clock.Advance(ttl / 2)
		if _, err := l.Acquire(t.Context(), "k", ttl); !errors.Is(err, lock.ErrHeld) {
			t.Fatalf("another owner took a kept lease: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatalf("kept context ended: %v", context.Cause(ctx))
		}
	}
	go func() { // a renewal may be waiting to report
		for range c.renewals {
		}
	}()
	stop()
	stop() // twice is harmless
	close(c.renewals)
	if err := lease.Release(t.Context()); err != nil {
		t.Fatalf("release after stop: %v", err)
	}
	if _, err := l.Acquire(t.Context(), "k", ttl); err != nil {
		t.Fatalf("the key is not free after release: %v", err)
	}
}

// TestKeepCancelsWhenLost: a lease taken over (here: released behind the
// keeper's back and taken by another owner) cancels the kept context with
// ErrLost as its cause.
func TestKeepCancelsWhenLost(t *testing.T) {
	l := memlock.New()
	const ttl = 150 * time.Millisecond
	lease, err := l.Acquire(t.Context(), "k", ttl)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := lock.Keep(t.Context(), lease, ttl)
	defer stop()
	if err := lease.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(t.Context(), "k", time.Minute); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the kept context outlived its lease")
	}
	if cause := context.Cause(ctx); !errors.Is(cause, lock.ErrLost) {
		t.Fatalf("cause %v, want lock.ErrLost", cause)
	}
}
