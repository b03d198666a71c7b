package embedder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/store"
)

// ReindexStatusBucket is the JetStream KV bucket of the last reindex
// request per tenant: key the tenant, value a ReindexStatus.
const ReindexStatusBucket = "recollect_reindex"

// States of a reindex request.
const (
	ReindexQueued   = "queued"   // published, not running (or waiting for a retry)
	ReindexAdopting = "adopting" // bringing other models' memories over (Qdrant)
	ReindexRunning  = "running"  // clearing old vectors and re-embedding
	ReindexDone     = "done"     // every memory is on the configured model
	ReindexFailed   = "failed"   // gave up; Error says why
)

// ReindexStatus is where the tenant's last reindex request stands. Done
// and Total count memories re-embedded of those found to move (over every
// round of the run).
type ReindexStatus struct {
	Tenant    string    `json:"tenant"`
	ID        string    `json:"id"`
	State     string    `json:"state"`
	Done      int       `json:"done"`
	Total     int       `json:"total"`
	Error     string    `json:"error,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Terminal reports whether the request will not change any more.
func (s ReindexStatus) Terminal() bool { return s.State == ReindexDone || s.State == ReindexFailed }

// ErrNoReindex: no reindex was requested for the tenant.
var ErrNoReindex = fmt.Errorf("no reindex requested: %w", store.ErrNotFound)

// ReindexStatuses reads and writes the reindex state of tenants.
type ReindexStatuses struct {
	kv  jetstream.KeyValue
	now func() time.Time
}

// OpenReindexStatuses opens (creating if needed) the reindex state bucket.
func OpenReindexStatuses(ctx context.Context, js jetstream.JetStream, now func() time.Time) (*ReindexStatuses, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: ReindexStatusBucket, Description: "last reindex request per tenant and where it stands",
		History: 1, Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("open reindex state bucket: %w", err)
	}
	return &ReindexStatuses{kv: kv, now: now}, nil
}

// Get returns the state of the tenant's last reindex request, ErrNoReindex
// when there is none.
func (s *ReindexStatuses) Get(ctx context.Context, tenant string) (ReindexStatus, error) {
	st, _, err := s.get(ctx, tenant)
	return st, err
}

func (s *ReindexStatuses) get(ctx context.Context, tenant string) (ReindexStatus, uint64, error) {
	e, err := s.kv.Get(ctx, tenant)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return ReindexStatus{}, 0, fmt.Errorf("tenant %s: %w", tenant, ErrNoReindex)
	}
	if err != nil {
		return ReindexStatus{}, 0, fmt.Errorf("read reindex state of %s: %w", tenant, err)
	}
	var st ReindexStatus
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return ReindexStatus{}, 0, fmt.Errorf("decode reindex state of %s: %w", tenant, err)
	}
	return st, e.Revision(), nil
}

// Queue records a new request as queued; it supersedes any earlier one.
// Write it before publishing the request, so that the embedder's writes
// always come after it.
func (s *ReindexStatuses) Queue(ctx context.Context, tenant, id string) error {
	data, err := json.Marshal(ReindexStatus{Tenant: tenant, ID: id, State: ReindexQueued, UpdatedAt: s.now().UTC()})
	if err != nil {
		return fmt.Errorf("encode reindex state: %w", err)
	}
	if _, err := s.kv.Put(ctx, tenant, data); err != nil {
		return fmt.Errorf("record reindex %s of %s as queued: %w", id, tenant, err)
	}
	return nil
}

// maxStatusCAS bounds the compare-and-set retries of one update.
const maxStatusCAS = 8

// update changes the state of request id of the tenant through change,
// compare-and-set: a record of another request (a newer one superseded
// this) is left alone, and a missing record is created. Writing the same
// state twice (a redelivery) is harmless.
func (s *ReindexStatuses) update(ctx context.Context, tenant, id string, change func(*ReindexStatus)) error {
	for range maxStatusCAS {
		st, rev, err := s.get(ctx, tenant)
		switch {
		case errors.Is(err, ErrNoReindex):
			st, rev = ReindexStatus{Tenant: tenant, ID: id}, 0
		case err != nil:
			return err
		case st.ID != id:
			return nil // superseded by a newer request
		}
		change(&st)
		st.UpdatedAt = s.now().UTC()
		data, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode reindex state: %w", err)
		}
		if rev == 0 {
			_, err = s.kv.Create(ctx, tenant, data)
		} else {
			_, err = s.kv.Update(ctx, tenant, data, rev)
		}
		switch {
		case err == nil:
			return nil
		case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
			continue // another writer won: read again
		default:
			return fmt.Errorf("record reindex %s of %s as %s: %w", id, tenant, st.State, err)
		}
	}
	return fmt.Errorf("record reindex %s of %s: %d conflicting writers in a row", id, tenant, maxStatusCAS)
}

// Fail records request id as failed with its reason (the query side, when
// publishing it failed after it was recorded queued).
func (s *ReindexStatuses) Fail(ctx context.Context, tenant, id string, reason error) error {
	return s.update(ctx, tenant, id, func(st *ReindexStatus) {
		st.State, st.Error = ReindexFailed, reason.Error()
	})
}

// reindexReport records a run's progress for request id: state and counts.
// A failed write of a step in between only leaves the state behind (the
// next step writes it again), so it is logged; the caller decides about
// the final one by its error.
func (e *Embedder) reindexReport(ctx context.Context, tenant, id, state string, done, total int) error {
	if e.statuses == nil {
		return nil
	}
	err := e.statuses.update(ctx, tenant, id, func(st *ReindexStatus) {
		st.State, st.Done, st.Total, st.Error = state, done, total, ""
	})
	if err != nil {
		e.log.WarnContext(ctx, "record reindex state", "tenant", tenant, "reindex", id, "state", state, "error", err)
	}
	return err
}

// reindexSettled records how a delivery of request id ended when it did
// not succeed: failed when no delivery follows (a permanent error, the
// last allowed delivery), queued with the reason while a retry is due.
// Done and Total stay where the run left them.
func (e *Embedder) reindexSettled(ctx context.Context, tenant, id string, runErr error, last bool) {
	if e.statuses == nil {
		return
	}
	state, reason := ReindexQueued, "retrying after: "+runErr.Error()
	if last {
		state, reason = ReindexFailed, runErr.Error()
	}
	err := e.statuses.update(context.WithoutCancel(ctx), tenant, id, func(st *ReindexStatus) {
		st.State, st.Error = state, reason
	})
	if err != nil {
		e.log.WarnContext(ctx, "record reindex state", "tenant", tenant, "reindex", id, "state", state, "error", err)
	}
}
