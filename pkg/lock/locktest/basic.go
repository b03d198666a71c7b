package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

func testAcquireHeld(t *testing.T, l lock.Locker, _ Advance) {
	k := key(t, "session")
	le := mustAcquire(t, l, k, longTTL)
	wantHeld(t, l, k)
	wantHeld(t, l, k) // a refused Acquire must not disturb the owner
	wantNoErr(t, "release owner", le.Release(context.Background()))
}

func testReleaseThenAcquire(t *testing.T, l lock.Locker, _ Advance) {
	ctx := context.Background()
	k := key(t, "session")
	first := mustAcquire(t, l, k, longTTL)
	wantNoErr(t, "release", first.Release(ctx))
	second := mustAcquire(t, l, k, longTTL)
	wantErrIs(t, "second release of first lease", first.Release(ctx), lock.ErrLost)
	wantErrIs(t, "renew of released lease", first.Renew(ctx, longTTL), lock.ErrLost)
	wantHeld(t, l, k) // neither call may have touched the second owner
	wantNoErr(t, "release second", second.Release(ctx))
	wantErrIs(t, "release twice", second.Release(ctx), lock.ErrLost)
}

func testIndependentKeys(t *testing.T, l lock.Locker, _ Advance) {
	ctx := context.Background()
	a, b := key(t, "a"), key(t, "b")
	la := mustAcquire(t, l, a, longTTL)
	lb := mustAcquire(t, l, b, longTTL)
	wantNoErr(t, "release a", la.Release(ctx))
	wantHeld(t, l, b)
	la = mustAcquire(t, l, a, longTTL)
	wantNoErr(t, "release a again", la.Release(ctx))
	wantNoErr(t, "release b", lb.Release(ctx))
}

func testInvalidArguments(t *testing.T, l lock.Locker, _ Advance) {
	ctx := context.Background()
	k := key(t, "session")
	for _, tc := range []struct {
		name string
		key  string
		ttl  time.Duration
	}{
		{"zero ttl", k, 0},
		{"negative ttl", k, -time.Second},
		{"empty key", "", longTTL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			le, err := l.Acquire(ctx, tc.key, tc.ttl)
			if err == nil || errors.Is(err, lock.ErrHeld) || le != nil {
				t.Fatalf("acquire(%q, %s) = %v, %v; want an argument error", tc.key, tc.ttl, le, err)
			}
		})
	}
	// Rejected calls must leave nothing behind.
	le := mustAcquire(t, l, k, longTTL)
	err := le.Renew(ctx, 0)
	if err == nil || errors.Is(err, lock.ErrLost) {
		t.Fatalf("renew with zero ttl = %v, want an argument error", err)
	}
	wantHeld(t, l, k)
	wantNoErr(t, "release", le.Release(ctx))
}

func testContextCanceled(t *testing.T, l lock.Locker, _ Advance) {
	k := key(t, "session")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	le, err := l.Acquire(canceled, k, longTTL)
	wantErrIs(t, "acquire with canceled context", err, context.Canceled)
	if le != nil {
		t.Fatal("acquire with canceled context returned a lease")
	}
	le = mustAcquire(t, l, k, longTTL) // the canceled call took nothing

	wantErrIs(t, "renew with canceled context", le.Renew(canceled, longTTL), context.Canceled)
	wantErrIs(t, "release with canceled context", le.Release(canceled), context.Canceled)
	wantHeld(t, l, k) // the canceled release gave nothing up
	wantNoErr(t, "renew", le.Renew(context.Background(), longTTL))
	wantNoErr(t, "release", le.Release(context.Background()))
}
