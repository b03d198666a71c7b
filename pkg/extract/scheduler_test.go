package extract

import (
	"context"
	"testing"
	"time"
)

// TestSchedulerKnownRevisionKeepsBackoff replays the order that made
// TestLeaseHeldElsewhere flaky: the handler reports revision 1, the run
// finds the lease held and backs off, then the bucket watch reports
// revision 1 again. The backoff must survive; a newer revision replaces it.
func TestSchedulerKnownRevisionKeepsBackoff(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now := t0
	debounced := t0.Add(5 * time.Second)
	retry := debounced.Add(heldRetry)
	s := newScheduler(func() time.Time { return now }, 1, func(context.Context, string) time.Time { return retry }, nil)

	s.set("k", 1, true, debounced) // the handler
	now = debounced
	if n := s.runDue(t.Context()); n != 1 {
		t.Fatalf("started %d runs, want 1", n)
	}
	if err := s.wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.set("k", 1, true, debounced) // the watch, late
	if e, _ := s.snapshot("k"); !e.due.Equal(retry) {
		t.Fatalf("due %s after a repeated revision, want the backoff %s", e.due, retry)
	}
	if n := s.runDue(t.Context()); n != 0 {
		t.Fatalf("started %d runs before the backoff ended", n)
	}

	later := retry.Add(time.Minute)
	s.set("k", 2, true, later) // a new turn
	if e, _ := s.snapshot("k"); !e.due.Equal(later) || e.rev != 2 {
		t.Fatalf("entry %+v after revision 2, want due %s", e, later)
	}
	s.set("k", 0, false, time.Time{}) // forget
	if _, ok := s.snapshot("k"); ok {
		t.Fatal("forgotten entry still scheduled")
	}
}
