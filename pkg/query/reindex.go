package query

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/web"
)

// ReindexRequest is the body of POST /v1/reindex.
type ReindexRequest struct {
	Tenant string `json:"tenant,omitempty"`
}

// ReindexResponse answers POST /v1/reindex: the request was queued.
type ReindexResponse struct {
	Tenant  string `json:"tenant"`
	Reindex string `json:"reindex"`
}

// reindex queues a move of the tenant's memories to the configured
// embedding model; the embedder does it in the background (see
// embedder.Reindex) while recall keeps working.
func (q *Query) reindex(w http.ResponseWriter, r *http.Request) {
	var req ReindexRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	id := "manual:" + uuid.NewString()
	if err := embedder.RequestReindex(r.Context(), q.pub, req.Tenant, id); err != nil {
		q.fail(w, r, "request reindex", err)
		return
	}
	web.WriteJSON(w, http.StatusAccepted, ReindexResponse{Tenant: req.Tenant, Reindex: id})
}
