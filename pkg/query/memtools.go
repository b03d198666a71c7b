package query

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// awaitStored answers a learn with wait once its memory is in the store:
// 201 with the memory under the id the learn predicted, or, when the wait
// runs out, 201 with the memory that records the event among its sources
// (a near-duplicate that absorbed it, or content the filters rewrote:
// Merged), or 202 with Stored false. The store has no per-event log, so the
// source check is one dry recall of the content, done once at the end.
func (q *Query) awaitStored(w http.ResponseWriter, r *http.Request, e *memory.Event, resp LearnResponse, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	m, err := q.pollMemory(ctx, e.Tenant, resp.MemoryID)
	if err == nil {
		q.writeStored(w, resp, m, false)
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

func (q *Query) writeStored(w http.ResponseWriter, resp LearnResponse, m memory.Memory, merged bool) {
	stored := true
	m.Vector = nil
	resp.Stored, resp.Merged, resp.Memory = &stored, merged, &m
	resp.MemoryID = m.ID
	web.WriteJSON(w, http.StatusCreated, resp)
}

// pollMemory reads the memory with a doubling backoff until it is found or
// ctx ends.
func (q *Query) pollMemory(ctx context.Context, tenant, id string) (memory.Memory, error) {
	delay := waitFirstPoll
	for {
		m, err := q.store.Get(ctx, tenant, id)
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			if ctx.Err() != nil {
				return memory.Memory{}, ctx.Err()
			}
			return memory.Memory{}, fmt.Errorf("get memory %s: %w", id, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return memory.Memory{}, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, waitMaxPoll)
	}
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
