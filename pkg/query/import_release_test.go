package query

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestReleaserWaitsForTheLastImport: the memory of a large import is
// released once, after the last of overlapping imports ends; never while
// one runs, and not after small imports only.
func TestReleaserWaitsForTheLastImport(t *testing.T) {
	var released atomic.Int32
	r := newReleaser(time.Millisecond, func() { released.Add(1) })

	r.begin()
	r.end(false)
	r.fire() // as a timer would; there is nothing to release
	if r.timer != nil || released.Load() != 0 {
		t.Fatalf("small import: timer %v, %d releases, want none", r.timer, released.Load())
	}

	r.begin() // a large import
	r.begin() // and another, overlapping
	r.end(true)
	if r.timer != nil {
		t.Fatal("release armed while an import still runs")
	}
	r.fire()
	if released.Load() != 0 {
		t.Fatal("released while an import still runs")
	}
	r.end(false)
	deadline := time.Now().Add(30 * time.Second)
	for released.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no release after the last import ended")
		}
		time.Sleep(time.Millisecond)
	}
	r.fire() // a late timer: already released
	if n := released.Load(); n != 1 {
		t.Fatalf("%d releases, want 1", n)
	}
}
