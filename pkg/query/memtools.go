package query

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Bounds of a learn's wait for its memory to be stored.
const (
	DefaultLearnWait = 10 * time.Second
	MaxLearnWait     = 30 * time.Second
	waitFirstPoll    = 5 * time.Millisecond
	waitMaxPoll      = 50 * time.Millisecond
	// mergeCheckTimeout bounds the recall that looks for a near-duplicate
	// that absorbed the memory, after the wait itself ran out.
	mergeCheckTimeout = 5 * time.Second
)

// learnWaitOptions reads wait and timeout from the body or the query
// string; on a bad timeout it has answered and returns false.
func learnWaitOptions(w http.ResponseWriter, r *http.Request, req *LearnRequest) (bool, time.Duration, bool) {
	wait := req.Wait || r.URL.Query().Get("wait") == "true"
	s := req.Timeout
	if p := r.URL.Query().Get("timeout"); p != "" {
		s = p
	}
	timeout := DefaultLearnWait
	if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 || d > MaxLearnWait {
			web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "timeout",
				Reason: fmt.Sprintf("must be a duration above 0 and at most %s (got %q)", MaxLearnWait, s)})
			return false, 0, false
		}
		timeout = d
	}
	return wait, timeout, true
}

// awaitStored answers a learn with wait once its memory is in the store.
// The embedder's stored event for the learn's event says which memory took
// it — the new one, or the near-duplicate that absorbed it — as soon as it
// decided; the store is also polled, with a doubling backoff, in case the
// event is missed (the feed is at-most-once, or not wired). When the wait
// runs out, a recall looks for a memory listing the event as a source;
// failing that the answer is 202 with stored false.
func (q *Query) awaitStored(w http.ResponseWriter, r *http.Request, e *memory.Event, resp LearnResponse, feed <-chan memory.StoredEvent, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	// A memory stored with a secret redacted has its event's id instead.
	m, merged, err := q.waitMemory(ctx, e.Tenant, feed, resp.MemoryID,
		memory.RedactedID(e.Tenant, e.Namespace, e.Subject, bus.EventMsgID(e.Tenant, e.ID)))
	if err == nil {
		q.writeStored(w, resp, m, merged)
		return
	}
	if r.Context().Err() != nil {
		return // the caller left
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		q.fail(w, r, "await memory", err)
		return
	}
	mctx, mcancel := context.WithTimeout(r.Context(), mergeCheckTimeout)
	defer mcancel()
	if m, ok := q.memoryWithSource(mctx, e); ok {
		q.writeStored(w, resp, m, m.ID != resp.MemoryID)
		return
	}
	stored := false
	resp.Stored = &stored
	web.WriteJSON(w, http.StatusAccepted, resp)
}

// waitMemory waits for the memory that took the learn: named by a stored
// event, or found under one of ids by polling. merged says another memory
// absorbed it (a duplicate or near-duplicate was reinforced).
func (q *Query) waitMemory(ctx context.Context, tenant string, stored <-chan memory.StoredEvent, ids ...string) (memory.Memory, bool, error) {
	delay := waitFirstPoll
	for {
		for _, id := range ids {
			m, err := q.store.Get(ctx, tenant, id)
			if err == nil {
				return m, false, nil
			}
			if !errors.Is(err, store.ErrNotFound) {
				if ctx.Err() != nil {
					return memory.Memory{}, false, ctx.Err()
				}
				return memory.Memory{}, false, fmt.Errorf("get memory %s: %w", id, err)
			}
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return memory.Memory{}, false, ctx.Err()
		case ev := <-stored:
			t.Stop()
			m, err := q.store.Get(ctx, tenant, ev.ID)
			if err != nil {
				return memory.Memory{}, false, fmt.Errorf("get memory %s named by its stored event: %w", ev.ID, err)
			}
			return m, !slices.Contains(ids, ev.ID) && ev.Op != memory.StoredInserted, nil
		case <-t.C:
		}
		delay = min(2*delay, waitMaxPoll)
	}
}

func (q *Query) writeStored(w http.ResponseWriter, resp LearnResponse, m memory.Memory, merged bool) {
	stored := true
	m.Vector = nil
	resp.Stored, resp.Merged, resp.Memory = &stored, merged, &m
	resp.MemoryID = m.ID
	web.WriteJSON(w, http.StatusCreated, resp)
}

// memoryWithSource looks, by a dry recall of the event's content, for a
// memory that lists the event among its sources.
func (q *Query) memoryWithSource(ctx context.Context, e *memory.Event) (memory.Memory, bool) {
	text := []rune(e.Memory.Content)
	if len(text) > recall.MaxQueryChars {
		text = text[:recall.MaxQueryChars]
	}
	res, err := q.recaller.Recall(ctx, recall.Request{Tenant: e.Tenant, Namespace: e.Namespace, Query: string(text),
		K: recall.MaxK, PerDomain: recall.MaxK, Dry: true})
	if err != nil {
		q.log.WarnContext(ctx, "look for merged memory", "tenant", e.Tenant, "error", err)
		return memory.Memory{}, false
	}
	src := bus.EventMsgID(e.Tenant, e.ID)
	for _, hit := range res.Memories {
		if hit.Memory.HasSource(src) {
			return hit.Memory, true
		}
	}
	return memory.Memory{}, false
}
