package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// heartbeatEvery is how often a long extraction tells JetStream it is
// still working on its event.
const heartbeatEvery = 10 * time.Second

// handleCompaction extracts the messages being compacted (001's
// pre-compaction flush): rule capture and transcript chunks at once, then
// the LLM once per compaction cycle. The cycle is the set of messages, so
// the same compaction sent again (a redelivery, a retrying agent) is not
// extracted twice.
func (x *Extractor) handleCompaction(ctx context.Context, d *bus.Delivery, e *memory.Event) error {
	o := eventOrigin(e, memory.SourceCompaction)
	facts := x.capture(o, e.Messages)
	facts = append(facts, x.episodes(o, messagesSaid(e))...)
	if err := x.publish(ctx, facts); err != nil {
		return fmt.Errorf("compaction %s: %w", e.ID, err)
	}
	if !x.llmOn() {
		return nil
	}
	marker := stateKey(flushPrefix, e.Tenant, e.Namespace, e.SessionID, "compaction", cycleOf(e.Messages))
	return x.once(ctx, d, marker, triggerCompaction, func(ctx context.Context) error {
		return x.extractWindows(ctx, o, e.Messages, triggerCompaction)
	})
}

// handleSessionEnd extracts the whole conversation (000's exit trigger):
// the event's messages plus any buffered turns they lack. It takes the
// session's lease, so it never runs beside the session's per-turn
// extraction, and forgets the session's buffer after.
func (x *Extractor) handleSessionEnd(ctx context.Context, d *bus.Delivery, e *memory.Event) error {
	o := eventOrigin(e, memory.SourceExit)
	facts := append(x.capture(o, e.Messages), x.episodes(o, messagesSaid(e))...)
	if err := x.publish(ctx, facts); err != nil {
		return fmt.Errorf("session end %s: %w", e.ID, err)
	}
	if !x.llmOn() {
		return nil
	}
	key := sessionKey(e.Tenant, e.Namespace, e.SessionID)
	lease, err := x.locks.Acquire(ctx, leaseKey(key), x.cfg.LeaseTTL)
	if err != nil {
		// Held: the session's turns are being extracted; retried after it.
		return fmt.Errorf("session end %s: take lease of session %s: %w", e.ID, e.SessionID, err)
	}
	defer func() {
		if err := lease.Release(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, lock.ErrLost) {
			x.log.Warn("release session lease", "session", e.SessionID, "error", err)
		}
	}()
	s, _, buffered, err := x.sessions.get(ctx, key)
	if err != nil {
		return fmt.Errorf("session end %s: %w", e.ID, err)
	}
	msgs := e.Messages
	if buffered {
		msgs = withPending(msgs, &s, x.cfg.MaxMessageChars)
		if o.subject == "" {
			o.subject = s.Subject
		}
	}
	marker := stateKey(flushPrefix, e.Tenant, e.Namespace, e.SessionID, "end", e.ID)
	err = x.once(ctx, d, marker, triggerSessionEnd, func(ctx context.Context) error {
		return x.extractWindows(ctx, o, msgs, triggerSessionEnd)
	})
	if err != nil {
		return err
	}
	if buffered {
		if err := x.sessions.kv.Delete(ctx, key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("session end %s: forget session buffer: %w", e.ID, err)
		}
		x.sched.forget(key)
	}
	return nil
}

// once runs fn unless marker says it already ran, then sets the marker.
// It keeps the event in progress while fn waits for the model, and turns
// a model that answered no call into a retryable error.
func (x *Extractor) once(ctx context.Context, d *bus.Delivery, marker, trigger string, fn func(context.Context) error) error {
	if _, err := x.sessions.kv.Get(ctx, marker); err == nil {
		x.m.extractions.WithLabelValues(trigger, "skipped").Inc()
		return nil
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) && !errors.Is(err, jetstream.ErrKeyDeleted) {
		return fmt.Errorf("read extraction marker: %w", err)
	}
	stop := heartbeat(d)
	err := fn(ctx)
	stop()
	if err != nil {
		return err // errModelUnavailable and publish errors are transient: redelivered later
	}
	if _, err := x.sessions.kv.Put(ctx, marker, []byte(x.now().UTC().Format(time.RFC3339))); err != nil {
		// The facts are out; a redelivery would only extract them again.
		x.log.Warn("record extraction marker", "trigger", trigger, "error", err)
	}
	return nil
}

// cycleOf identifies a compaction cycle by its messages.
func cycleOf(msgs []memory.Message) string {
	h := sha256.New()
	for _, m := range msgs {
		h.Write([]byte(m.ID))
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// withPending adds the session's unextracted turns that msgs lack (by id,
// or by content as the buffer holds it: cut to limit characters).
func withPending(msgs []memory.Message, s *session, limit int) []memory.Message {
	out := slices.Clone(msgs)
	for _, t := range s.Turns {
		if t.Seq <= s.Extracted || slices.ContainsFunc(msgs, func(m memory.Message) bool {
			return m.ID != "" && m.ID == t.ID || cutMessage(memory.CleanText(m.Content), limit) == t.Content
		}) {
			continue
		}
		out = append(out, memory.Message{ID: t.ID, Role: t.Role, Content: t.Content, TS: t.TS})
	}
	return out
}

// heartbeat keeps d in progress until stop, so a slow model does not
// make JetStream redeliver it.
func heartbeat(d *bus.Delivery) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = d.InProgress()
			}
		}
	}()
	return func() { close(done) }
}
