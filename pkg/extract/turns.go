package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// Waits of the per-session schedule.
const (
	heldRetry     = 2 * time.Second  // the lease is held: look again
	failRetry     = 5 * time.Second  // the run failed before recording anything
	bookkeeping   = 15 * time.Second // time to publish and record once the model answered
	maxRetryDelay = 5 * time.Minute
)

// leaseKey is the lease of a session's extraction.
func leaseKey(sessionKey string) string { return "extract:" + sessionKey }

// recordTurn buffers a turn for its session's debounced LLM extraction and
// schedules it. A turn without a session, or not from the user or the
// agent, has nothing to wait for.
func (x *Extractor) recordTurn(ctx context.Context, e *memory.Event) error {
	if e.SessionID == "" || !extractable(e.Role) || strings.TrimSpace(e.Content) == "" {
		return nil
	}
	key := sessionKey(e.Tenant, e.Namespace, e.SessionID)
	content := cutMessage(memory.CleanText(e.Content), x.cfg.MaxMessageChars)
	dropped := 0
	s, rev, err := x.sessions.update(ctx, key, func(s *session, _ bool) (bool, error) {
		added, n := s.add(e, content, x.now(), x.instance)
		dropped = n
		return added, nil
	})
	if err != nil {
		return fmt.Errorf("buffer turn %s of session %s: %w", e.ID, e.SessionID, err)
	}
	if dropped > 0 {
		x.m.dropped.WithLabelValues("turns").Add(float64(dropped))
		x.log.Warn("session buffer full, oldest unextracted turns dropped", "tenant", e.Tenant, "session", e.SessionID, "dropped", dropped)
	}
	x.schedule(key, rev, &s)
	return nil
}

// runSession extracts a session's pending turns if they are due, under
// the session's lease. It returns when to look again when it recorded
// nothing (zero: the bucket's next state decides).
func (x *Extractor) runSession(ctx context.Context, key string) time.Time {
	lease, err := x.locks.Acquire(ctx, leaseKey(key), x.cfg.LeaseTTL)
	if errors.Is(err, lock.ErrHeld) {
		return x.now().Add(heldRetry)
	}
	if err != nil {
		x.log.Warn("take session lease", "key", key, "error", err)
		return x.now().Add(failRetry)
	}
	jctx, cancel := withDeadline(ctx, x.cfg.ExtractTimeout)
	defer cancel()
	// Losing the lease cancels the extraction: another replica may take
	// the session.
	jctx, stopKeep := lock.Keep(jctx, lease, x.cfg.LeaseTTL)
	lost := func() bool { return errors.Is(context.Cause(jctx), lock.ErrLost) }
	defer func() {
		stopKeep()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := lease.Release(rctx); err != nil && !errors.Is(err, lock.ErrLost) {
			x.log.Warn("release session lease", "key", key, "error", err)
		}
	}()

	s, rev, ok, err := x.sessions.get(jctx, key)
	if err != nil {
		x.log.Warn("read session buffer", "key", key, "error", err)
		return x.now().Add(failRetry)
	}
	if !ok {
		x.sched.forget(key)
		return time.Time{}
	}
	due, pending := s.due(x.cfg.Debounce, x.cfg.FailoverDelay, x.cfg.MaxPendingTurns, x.instance)
	if !pending || x.now().Before(due) {
		x.sched.set(key, rev, pending, due) // a newer turn moved the debounce, or another replica did it
		return time.Time{}
	}
	msgs, upTo, ids := s.window(x.cfg.TurnWindow)
	o := &origin{tenant: s.Tenant, namespace: s.Namespace, subject: s.Subject, channel: s.Channel,
		session: s.Session, source: memory.SourceTurn, event: s.lastEvent(), ids: ids, ts: lastTS(msgs)}
	exErr := x.extractWindows(jctx, o, msgs, triggerTurn)
	if exErr != nil && (ctx.Err() != nil || lost()) {
		// Stopping, or another replica took the session: leave the turns
		// pending without counting an attempt.
		x.log.Warn("session extraction interrupted", "tenant", s.Tenant, "session", s.Session, "error", exErr, "cause", context.Cause(jctx))
		return x.now().Add(failRetry)
	}

	bctx, bcancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeeping)
	defer bcancel()
	gaveUp := false
	st, rev, err := x.sessions.update(bctx, key, func(s *session, exists bool) (bool, error) {
		if !exists {
			return false, nil // the session ended meanwhile
		}
		switch {
		case exErr == nil:
			s.done(upTo, x.cfg.TurnWindow)
		case errors.Is(exErr, errModelUnavailable):
			s.Attempts++
			if s.Attempts >= x.cfg.MaxAttempts {
				gaveUp = true
				s.done(upTo, x.cfg.TurnWindow)
			} else {
				s.NotBefore = x.now().Add(retryDelay(s.Attempts))
			}
		default:
			return false, nil // publishing failed: try again at failRetry
		}
		return true, nil
	})
	if err != nil {
		x.log.Warn("record session extraction", "tenant", s.Tenant, "session", s.Session, "error", err)
		return x.now().Add(failRetry)
	}
	if gaveUp {
		x.m.dropped.WithLabelValues("windows").Inc()
		x.log.Error("llm unavailable for every attempt, session turns left to rule capture alone",
			"tenant", s.Tenant, "session", s.Session, "subject", s.Subject, "attempts", x.cfg.MaxAttempts, "error", exErr)
	}
	x.schedule(key, rev, &st)
	if exErr != nil && !errors.Is(exErr, errModelUnavailable) {
		x.log.Warn("session extraction failed", "tenant", s.Tenant, "session", s.Session, "error", exErr)
		return x.now().Add(failRetry)
	}
	return time.Time{}
}

// retryDelay backs off extraction retries while the model is unavailable.
func retryDelay(attempt int) time.Duration {
	d := 10 * time.Second
	for range attempt - 1 {
		d *= 2
		if d >= maxRetryDelay {
			return maxRetryDelay
		}
	}
	return d
}

func lastTS(msgs []memory.Message) time.Time {
	var t time.Time
	for _, m := range msgs {
		if m.TS.After(t) {
			t = m.TS
		}
	}
	return t
}
