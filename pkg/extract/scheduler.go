package extract

import (
	"context"
	"sync"
	"time"
)

// scheduler runs each pending session's extraction when it is due, one at
// a time per session within the process (the lease makes it one across
// processes). It only decides when to try: the run re-reads the session
// and re-checks, so a stale or early entry costs a read, never a wrong
// extraction. Time comes from now, so tests drive it with a fake clock
// and runDue.
type scheduler struct {
	now     func() time.Time
	run     func(ctx context.Context, key string) (retryAt time.Time)
	sem     chan struct{}
	onCount func(n int)

	mu      sync.Mutex
	entries map[string]*schedEntry
	wg      sync.WaitGroup
}

type schedEntry struct {
	due     time.Time
	rev     uint64 // bucket revision the entry was derived from
	pending bool
	running bool
}

func newScheduler(now func() time.Time, concurrency int, run func(context.Context, string) time.Time, onCount func(int)) *scheduler {
	if onCount == nil {
		onCount = func(int) {}
	}
	return &scheduler{now: now, run: run, sem: make(chan struct{}, concurrency), onCount: onCount, entries: map[string]*schedEntry{}}
}

// set records what a session's state at revision rev says: whether turns
// are pending and when they are due. A revision older than the one known
// is ignored (the bucket watch may deliver late), and so is the one known:
// the handler and the watch both report each revision, in either order,
// and the second report must not undo a backoff finish set in between.
func (s *scheduler) set(key string, rev uint64, pending bool, due time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	if e == nil {
		if !pending {
			return
		}
		e = &schedEntry{}
		s.entries[key] = e
	}
	if rev != 0 && rev <= e.rev {
		return
	}
	e.rev, e.pending, e.due = max(rev, e.rev), pending, due
	if !pending && !e.running {
		delete(s.entries, key)
	}
	s.onCount(len(s.entries))
}

// forget drops a session that was deleted.
func (s *scheduler) forget(key string) {
	s.set(key, 0, false, time.Time{})
}

// runDue starts the runs of every due session that is not running, as
// concurrency allows, and returns how many it started.
func (s *scheduler) runDue(ctx context.Context) int {
	now := s.now()
	s.mu.Lock()
	var due []string
	for k, e := range s.entries {
		if e.pending && !e.running && !now.Before(e.due) {
			due = append(due, k)
		}
	}
	s.mu.Unlock()
	started := 0
	for _, k := range due {
		select {
		case s.sem <- struct{}{}:
		default:
			return started // all slots busy: the next tick picks the rest
		}
		s.mu.Lock()
		e := s.entries[k]
		if e == nil || e.running {
			s.mu.Unlock()
			<-s.sem
			continue
		}
		e.running = true
		s.mu.Unlock()
		started++
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			retryAt := s.run(ctx, k)
			<-s.sem
			s.finish(k, retryAt)
		}()
	}
	return started
}

// finish ends a run; retryAt, when set, is the earliest next try (the
// lease was held elsewhere, or the run failed before recording anything).
func (s *scheduler) finish(key string, retryAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	if e == nil {
		return
	}
	e.running = false
	if !e.pending {
		delete(s.entries, key)
		s.onCount(len(s.entries))
		return
	}
	if retryAt.After(e.due) {
		e.due = retryAt
	}
}

// loop runs due sessions every tick until ctx ends.
func (s *scheduler) loop(ctx context.Context, jobs context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.runDue(jobs)
		}
	}
}

// wait blocks until the runs in flight return or ctx ends.
func (s *scheduler) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// snapshot returns a session's entry, for tests and metrics.
func (s *scheduler) snapshot(key string) (schedEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok {
		return schedEntry{}, false
	}
	return *e, true
}
