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
// operating system once no import has ended for its delay. Go keeps freed
// heap up to twice the live heap by default, so without it a process that
// imported a big file stays at about twice the resident memory of the same
// data after a restart; with it, the same (bench import).
type releaser struct {
	mu      sync.Mutex
	delay   time.Duration
	release func()
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

// SetImportRelease sets how long large imports must have been idle before
// the memory they freed is returned to the operating system
// (DefaultImportReleaseDelay when not positive) and the function doing it
// (debug.FreeOSMemory when nil).
func (q *Query) SetImportRelease(delay time.Duration, release func()) {
	q.release = newReleaser(delay, release)
}

// large reports whether the import is worth a release: its body outgrew
// the spool's memory.
func (s *spool) large() bool { return s.file != nil }

// imported notes the end of a large import: the release runs once the
// delay passes with no other.
func (r *releaser) imported() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.release)
		return
	}
	r.timer.Reset(r.delay)
}
