package query

import (
	"errors"
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"net/http"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/topiary"
	"github.com/recollect-dev/recollect/pkg/topics"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Topic drill-down bounds: ids per request, memories per topic (default
// and most) and memories per answer in all.
const (
	maxTopicIDs         = 100
	defaultTopicLimit   = 50
	maxTopicLimit       = 500
	maxTopicAnswerTotal = maxListLimit
)

// TopicsRequest is the body of POST /v1/topics.
type TopicsRequest = api.TopicsRequest

// TopicsResponse is the tree, or the requested nodes and, in Details,
// their memories.
type TopicsResponse struct {
	Tenant   string         `json:"tenant"`
	Built    time.Time      `json:"built,omitzero"`
	Memories int            `json:"memories"`
	Topics   []*topics.Node `json:"topics"`
	Missing  []string       `json:"missing,omitempty"`
	// Details holds, keyed by topic id, each requested topic found: its
	// name and memories (003 §6.6).
	Details map[string]TopicDetail `json:"details,omitempty"`
}

// TopicDetail is a drilled-into topic: its name and its memories as GET
// /v1/memories/{id} returns them, most important first. Archived and
// superseded members, and members deleted since the tree was built, are
// left out.
type TopicDetail = api.TopicDetail

func (q *Query) topics(w http.ResponseWriter, r *http.Request) {
	var req TopicsRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	switch {
	case len(req.IDs) > maxTopicIDs:
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "ids", Reason: fmt.Sprintf("has more than %d topic ids", maxTopicIDs)})
		return
	case req.Limit < 0 || req.Limit > maxTopicLimit:
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "limit", Reason: fmt.Sprintf("must be between 1 and %d", maxTopicLimit)})
		return
	case req.Limit == 0:
		req.Limit = defaultTopicLimit
	}
	tree, err := q.trees.Load(r.Context(), req.Tenant)
	if errors.Is(err, topiary.ErrNoTree) {
		resp := TopicsResponse{Tenant: req.Tenant, Topics: []*topics.Node{}}
		if len(req.IDs) > 0 {
			resp.Missing = req.IDs
		}
		web.WriteJSON(w, http.StatusOK, resp)
		return
	}
	if err != nil {
		q.fail(w, r, "load topics", err)
		return
	}
	resp := TopicsResponse{Tenant: req.Tenant, Built: tree.Built, Memories: tree.Memories, Topics: tree.Roots}
	if len(req.IDs) == 0 {
		if resp.Topics == nil {
			resp.Topics = []*topics.Node{}
		}
		web.WriteJSON(w, http.StatusOK, resp)
		return
	}
	resp.Topics, resp.Details = []*topics.Node{}, map[string]TopicDetail{}
	budget := maxTopicAnswerTotal
	for _, id := range req.IDs {
		n, ok := tree.Find(id)
		if !ok {
			resp.Missing = append(resp.Missing, id)
			continue
		}
		if _, dup := resp.Details[id]; dup {
			continue
		}
		d, err := q.topicMemories(r, req.Tenant, n, min(req.Limit, budget))
		if err != nil {
			q.fail(w, r, "read topic memories", err)
			return
		}
		budget -= len(d.Memories)
		resp.Topics = append(resp.Topics, n)
		resp.Details[id] = d
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// topicMemories reads up to limit valid memories of a topic, in the tree's
// order (most important first).
func (q *Query) topicMemories(r *http.Request, tenant string, n *topics.Node, limit int) (TopicDetail, error) {
	d := TopicDetail{Name: n.Name, Memories: []memory.Memory{}}
	for _, id := range n.MemoryIDs {
		m, err := q.store.Get(r.Context(), tenant, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since the tree was built
		}
		if err != nil {
			return d, fmt.Errorf("get memory %s of topic %s: %w", id, n.ID, err)
		}
		if m.Archived || m.Superseded() {
			continue
		}
		if len(d.Memories) == limit {
			d.Truncated = true
			break
		}
		m.Vector = nil
		d.Memories = append(d.Memories, m)
	}
	return d, nil
}
