package query

import (
	"context"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"net/http"

	"github.com/google/uuid"

	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/web"
)

// ReindexRequest is the body of POST /v1/reindex.
type ReindexRequest = api.ReindexRequest

// ReindexResponse answers POST /v1/reindex: the request was queued.
type ReindexResponse = api.ReindexResponse

// ReindexStatus answers GET /v1/reindex: where the tenant's last reindex
// request stands.
type ReindexStatus = embedder.ReindexStatus

// SetReindexStatuses gives the module the reindex state: POST /v1/reindex
// records its request queued there, GET /v1/reindex reads it. Call it
// before Routes; without it GET /v1/reindex is not mounted.
func (q *Query) SetReindexStatuses(s *embedder.ReindexStatuses) { q.reindexes = s }

// reindex queues a move of the tenant's memories to the configured
// embedding model; the embedder does it in the background (see
// embedder.Reindex) while recall keeps working. The request is recorded
// queued before it is published, so a status read right after this answer
// shows it, and the embedder's writes come after.
func (q *Query) reindex(w http.ResponseWriter, r *http.Request) {
	var req ReindexRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	id := "manual:" + uuid.NewString()
	if q.reindexes != nil {
		if err := q.reindexes.Queue(r.Context(), req.Tenant, id); err != nil {
			q.fail(w, r, "request reindex", err)
			return
		}
	}
	if err := embedder.RequestReindex(r.Context(), q.pub, req.Tenant, id); err != nil {
		if q.reindexes != nil {
			// Never leave a request recorded queued that nobody will run.
			if ferr := q.reindexes.Fail(context.WithoutCancel(r.Context()), req.Tenant, id, fmt.Errorf("not queued: %w", err)); ferr != nil {
				q.log.WarnContext(r.Context(), "record reindex as failed", "tenant", req.Tenant, "reindex", id, "error", ferr)
			}
		}
		q.fail(w, r, "request reindex", err)
		return
	}
	web.WriteJSON(w, http.StatusAccepted, ReindexResponse{Tenant: req.Tenant, Reindex: id})
}

// reindexStatus answers where the tenant's last reindex request stands;
// 404 when none was made.
func (q *Query) reindexStatus(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	st, err := q.reindexes.Get(r.Context(), tenant)
	if err != nil {
		q.fail(w, r, "read reindex state", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, st)
}
