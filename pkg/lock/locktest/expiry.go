package locktest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// renewAttempts bounds retries of RenewExtends when a slow machine lets the
// short lease expire before Renew reaches it.
const renewAttempts = 5

func testExpiredLeaseIsLost(t *testing.T, l lock.Locker, advance Advance) {
	ctx := context.Background()
	k := key(t, "session")
	le := mustAcquire(t, l, k, shortTTL)
	advance(pastShort)
	wantErrIs(t, "renew after expiry", le.Renew(ctx, longTTL), lock.ErrLost)
	wantErrIs(t, "release after expiry", le.Release(ctx), lock.ErrLost)
	next := acquireEventually(t, l, k, longTTL)
	wantHeld(t, l, k)
	wantNoErr(t, "release next owner", next.Release(ctx))
}

func testStaleLeaseLeavesNewOwner(t *testing.T, l lock.Locker, advance Advance) {
	ctx := context.Background()
	k := key(t, "session")
	stale := mustAcquire(t, l, k, shortTTL)
	advance(pastShort)
	owner := acquireEventually(t, l, k, longTTL)
	wantErrIs(t, "release by stale lease", stale.Release(ctx), lock.ErrLost)
	wantErrIs(t, "renew by stale lease", stale.Renew(ctx, longTTL), lock.ErrLost)
	wantHeld(t, l, k)
	wantNoErr(t, "renew by owner", owner.Renew(ctx, longTTL))
	wantNoErr(t, "release by owner", owner.Release(ctx))
}

// testRenewExtends checks a renewed lease outlives its original ttl. Only a
// renewal that lands before the first ttl runs out proves that, so on a
// machine too slow for that the attempt is repeated with a longer ttl.
func testRenewExtends(t *testing.T, l lock.Locker, advance Advance) {
	ctx := context.Background()
	ttl := shortTTL
	for attempt := range renewAttempts {
		k := key(t, fmt.Sprintf("attempt-%d", attempt))
		le := mustAcquire(t, l, k, ttl)
		err := le.Renew(ctx, longTTL)
		if errors.Is(err, lock.ErrLost) {
			t.Logf("lease of %s expired before renew; retrying with twice the ttl", ttl)
			ttl *= 2
			continue
		}
		wantNoErr(t, "renew", err)
		advance(ttl + ttl/2)
		wantHeld(t, l, k)
		wantNoErr(t, "release renewed lease", le.Release(ctx))
		return
	}
	t.Fatalf("renew returned ErrLost on a fresh lease %d times", renewAttempts)
}

// testRenewSetsTTLFromNow checks Renew replaces the ttl rather than only
// ever lengthening it: a long lease renewed short expires.
func testRenewSetsTTLFromNow(t *testing.T, l lock.Locker, advance Advance) {
	ctx := context.Background()
	k := key(t, "session")
	le := mustAcquire(t, l, k, longTTL)
	wantNoErr(t, "renew short", le.Renew(ctx, shortTTL))
	advance(pastShort)
	next := acquireEventually(t, l, k, longTTL)
	wantErrIs(t, "release after short renew expired", le.Release(ctx), lock.ErrLost)
	wantNoErr(t, "release next owner", next.Release(ctx))
}
