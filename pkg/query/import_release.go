package query

import (
	"runtime/debug"
	"sync"
	"time"
)

// DefaultImportReleaseDelay is how long imports must have been idle before
// the heap they freed is returned to the operating system.
const DefaultImportReleaseDelay = time.Second

// releaser returns the memory a burst of large imports freed to the
// operating system once no import has run for its delay. Go keeps freed
// heap up to twice the live heap by default, so without it a process that
// imported a big file stays at about twice the resident memory of the same
// data after a restart (bench import). `recollect import` sends a big file
// as consecutive requests: the release waits for the last.
type releaser struct {
	mu      sync.Mutex
	delay   time.Duration
	release func()
	active  int  // imports running
	pending bool // a large import ended since the last release
	timer   *time.Timer
}

func newReleaser(delay time.Duration, release func()) *releaser {
	if delay <= 0 {
		delay = DefaultImportReleaseDelay
	}
	if release == nil {
		release = debug.FreeOSMemory
	}
	return &releaser{delay: delay, release: release}
}

// SetImportRelease sets how long imports must have been idle after a
// large one before the memory it freed is returned to the operating
// system (DefaultImportReleaseDelay when not positive) and the function
// doing it (debug.FreeOSMemory when nil).
func (q *Query) SetImportRelease(delay time.Duration, release func()) {
	q.release = newReleaser(delay, release)
}

// begin notes an import starting: no release while it runs.
func (r *releaser) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	if r.timer != nil {
		r.timer.Stop()
	}
}

// end notes an import ending; after a large one, the release runs once
// the delay passes with no import running.
func (r *releaser) end(large bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active--
	r.pending = r.pending || large
	if r.active > 0 || !r.pending {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.fire)
		return
	}
	r.timer.Reset(r.delay)
}

// fire releases, unless an import started since the timer was set.
func (r *releaser) fire() {
	r.mu.Lock()
	run := r.active == 0 && r.pending
	if run {
		r.pending = false
	}
	r.mu.Unlock()
	if run {
		r.release()
	}
}
