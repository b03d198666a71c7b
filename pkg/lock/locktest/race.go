package locktest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

const (
	racers  = 16
	workers = 8
	// rounds is how many times each worker must hold the key, so the
	// exclusion check cannot pass with a single lucky acquisition.
	rounds = 5
)

// testRaceOneWinner starts many Acquires on one key at once: exactly one
// may win, every other must see ErrHeld.
func testRaceOneWinner(t *testing.T, l lock.Locker, _ Advance) {
	k := key(t, "session")
	start := make(chan struct{})
	results := make(chan error, racers)
	leases := make(chan lock.Lease, racers)
	var wg sync.WaitGroup
	for range racers {
		wg.Go(func() {
			<-start
			le, err := l.Acquire(context.Background(), k, longTTL)
			if err == nil {
				leases <- le
			}
			results <- err
		})
	}
	close(start)
	wg.Wait()
	close(results)
	close(leases)
	held := 0
	for err := range results {
		switch {
		case errors.Is(err, lock.ErrHeld):
			held++
		case err != nil:
			t.Fatalf("racing acquire: %v", err)
		}
	}
	if len(leases) != 1 || held != racers-1 {
		t.Fatalf("%d winners and %d ErrHeld among %d racers, want 1 and %d", len(leases), held, racers, racers-1)
	}
	wantNoErr(t, "release winner", (<-leases).Release(context.Background()))
}

// testMutualExclusion has workers repeatedly take, hold and release one key
// until each has held it rounds times: no two may ever hold it at once, and
// every release by a holder succeeds.
func testMutualExclusion(t *testing.T, l lock.Locker, _ Advance) {
	ctx := context.Background()
	k := key(t, "session")
	deadline := time.Now().Add(eventually)
	var holders atomic.Int32
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for won := 0; won < rounds; {
				if time.Now().After(deadline) {
					errs <- fmt.Errorf("held the key %d of %d times before the deadline", won, rounds)
					return
				}
				le, err := l.Acquire(ctx, k, longTTL)
				if errors.Is(err, lock.ErrHeld) {
					runtime.Gosched()
					continue
				}
				if err != nil {
					errs <- fmt.Errorf("acquire: %w", err)
					return
				}
				won++
				if n := holders.Add(1); n != 1 {
					errs <- fmt.Errorf("%d holders at once", n)
					return
				}
				runtime.Gosched()
				holders.Add(-1)
				if err := le.Release(ctx); err != nil {
					errs <- fmt.Errorf("release by holder: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
