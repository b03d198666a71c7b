// Package locktest is the acceptance suite every lock.Locker must pass, so
// the in-process and Redis implementations behave the same to callers.
package locktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// Advance makes at least d pass for the locker under test: a fake clock
// moves forward, a real server is waited on.
type Advance func(d time.Duration)

const (
	// longTTL never runs out during a test: "still held" checks use it, so
	// they hold however slow the machine is.
	longTTL = time.Minute
	// shortTTL is waited out for real by server-backed lockers; expiry
	// checks only rely on at least pastShort having passed.
	shortTTL  = 100 * time.Millisecond
	pastShort = shortTTL + shortTTL/2
	// eventually bounds polls for a condition that should hold promptly.
	eventually = 5 * time.Second
)

// Run runs every case of the suite as a parallel subtest, each with its own
// locker from newLocker and the Advance that moves that locker's time.
// Lockers may share a backend: every subtest uses its own keys.
func Run(t *testing.T, newLocker func(t *testing.T) (lock.Locker, Advance)) {
	cases := []struct {
		name string
		fn   func(t *testing.T, l lock.Locker, advance Advance)
	}{
		{"AcquireHeld", testAcquireHeld},
		{"ReleaseThenAcquire", testReleaseThenAcquire},
		{"IndependentKeys", testIndependentKeys},
		{"InvalidArguments", testInvalidArguments},
		{"ExpiredLeaseIsLost", testExpiredLeaseIsLost},
		{"StaleLeaseLeavesNewOwner", testStaleLeaseLeavesNewOwner},
		{"RenewExtends", testRenewExtends},
		{"RenewSetsTTLFromNow", testRenewSetsTTLFromNow},
		{"RaceOneWinner", testRaceOneWinner},
		{"MutualExclusion", testMutualExclusion},
		{"ContextCanceled", testContextCanceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l, advance := newLocker(t)
			c.fn(t, l, advance)
		})
	}
}

// key is unique per subtest, so lockers sharing one server do not collide.
func key(t *testing.T, suffix string) string {
	return "locktest/" + t.Name() + "/" + suffix
}

func mustAcquire(t *testing.T, l lock.Locker, key string, ttl time.Duration) lock.Lease {
	t.Helper()
	le, err := l.Acquire(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("acquire %q: %v", key, err)
	}
	if le == nil {
		t.Fatalf("acquire %q: nil lease without error", key)
	}
	if le.Key() != key {
		t.Fatalf("lease key = %q, want %q", le.Key(), key)
	}
	return le
}

// wantHeld checks key is held by someone else right now.
func wantHeld(t *testing.T, l lock.Locker, key string) {
	t.Helper()
	le, err := l.Acquire(context.Background(), key, longTTL)
	if !errors.Is(err, lock.ErrHeld) {
		t.Fatalf("acquire held %q: err = %v (lease %v), want ErrHeld", key, err, le)
	}
	if le != nil {
		t.Fatalf("acquire held %q: non-nil lease with ErrHeld", key)
	}
}

// acquireEventually polls until key can be taken, for keys whose previous
// lease should have expired.
func acquireEventually(t *testing.T, l lock.Locker, key string, ttl time.Duration) lock.Lease {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for {
		le, err := l.Acquire(context.Background(), key, ttl)
		switch {
		case err == nil:
			return le
		case !errors.Is(err, lock.ErrHeld):
			t.Fatalf("acquire %q: %v", key, err)
		case time.Now().After(deadline):
			t.Fatalf("acquire %q: still held %s after its lease should have expired", key, eventually)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func wantErrIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}

func wantNoErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
