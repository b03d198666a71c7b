package usagetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/usage"
)

// testBuffered sends records through the Buffered sink from several
// goroutines and checks Close delivers every one of them to the backend.
func testBuffered(t *testing.T, w usage.Writer, r usage.Reader) {
	const goroutines, each = 8, 250
	b := usage.NewBuffered(w, usage.WithBatchSize(64), usage.WithFlushInterval(10*time.Millisecond))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				x := rec(fmt.Sprintf("c%d", g%2), "m", 1, int64(i), time.Millisecond, usage.OutcomeOK)
				b.Record(t.Context(), x)
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatalf("close buffered sink: %v", err)
	}
	if b.Dropped() != 0 || b.Written() != goroutines*each {
		t.Fatalf("written %d, dropped %d; want %d, 0", b.Written(), b.Dropped(), goroutines*each)
	}
	half := int64(goroutines / 2 * each)
	out := half * (each - 1) / 2 // sum of 0..each-1 per goroutine
	wantTotals(t, "through buffer", totals(t, r, usage.Query{}), []usage.Total{
		{Component: "c0", Model: "m", Calls: half, InputTokens: half, OutputTokens: out, Duration: time.Duration(half) * time.Millisecond},
		{Component: "c1", Model: "m", Calls: half, InputTokens: half, OutputTokens: out, Duration: time.Duration(half) * time.Millisecond},
	})
}
