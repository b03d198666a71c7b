package query

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

// DeleteResponse is the answer of DELETE /v1/memories.
type DeleteResponse struct {
	Deleted int `json:"deleted"`
}

// deleteBatch is how many memories one Delete call and one announcement
// batch carry.
const deleteBatch = 500

// deleteMany answers DELETE /v1/memories: by namespace_prefix, or the
// purge of a subject; exactly one of them.
func (q *Query) deleteMany(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	params := r.URL.Query()
	switch {
	case params.Has("subject") && params.Has("namespace_prefix"):
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "subject",
			Reason: "and namespace_prefix cannot be combined: give one"})
	case params.Has("subject"):
		q.purgeSubject(w, r, tenant, params.Get("subject"))
	default:
		q.deleteByPrefix(w, r, tenant, params.Get("namespace_prefix"))
	}
}

// deleteByPrefix deletes every memory of the tenant, archived and
// superseded ones too, whose namespace starts with prefix.
func (q *Query) deleteByPrefix(w http.ResponseWriter, r *http.Request, tenant, prefix string) {
	if prefix == "" || len(prefix) > memory.MaxNameChars {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "namespace_prefix",
			Reason: fmt.Sprintf("is required (or subject), at most %d characters", memory.MaxNameChars)})
		return
	}
	// Collect first: deleting while scrolling would move the scroll's pages.
	var ids []string
	err := q.store.Scroll(r.Context(), tenant, everything, func(m memory.Memory) error {
		if strings.HasPrefix(m.Namespace, prefix) {
			ids = append(ids, m.ID)
		}
		return nil
	})
	if err != nil {
		q.fail(w, r, "list memories to delete", err)
		return
	}
	deleted, ok := q.deleteIDs(w, r, tenant, "namespace_prefix", ids)
	if !ok {
		return
	}
	q.log.InfoContext(r.Context(), "deleted namespace prefix", "tenant", tenant, "namespace_prefix", prefix, "deleted", deleted)
	web.WriteJSON(w, http.StatusOK, DeleteResponse{Deleted: deleted})
}

// deleteIDs deletes ids in order, batch by batch, announcing and counting
// each batch under by. On failure it has answered and returns false.
func (q *Query) deleteIDs(w http.ResponseWriter, r *http.Request, tenant, by string, ids []string) (int, bool) {
	deleted := 0
	for start := 0; start < len(ids); start += deleteBatch {
		batch := ids[start:min(start+deleteBatch, len(ids))]
		if err := q.store.Delete(r.Context(), tenant, batch...); err != nil {
			q.fail(w, r, fmt.Sprintf("delete memories (%d deleted)", deleted), err)
			return deleted, false
		}
		deleted += len(batch)
		q.deleted.WithLabelValues(by).Add(float64(len(batch)))
		q.announceDeleted(r.Context(), tenant, batch)
	}
	return deleted, true
}

// announceDeleted publishes the deletions on the tenant's stored subject,
// as a delete by id does; a failure is logged, the deletion stands.
func (q *Query) announceDeleted(ctx context.Context, tenant string, ids []string) {
	msgs := make([]bus.Msg, 0, len(ids))
	for _, id := range ids {
		data, err := json.Marshal(memory.StoredEvent{Tenant: tenant, ID: id, Op: memory.StoredDeleted})
		if err != nil {
			continue
		}
		msgs = append(msgs, bus.Msg{Subject: bus.StoredSubject(tenant), ID: "deleted:" + tenant + ":" + id, Data: data})
	}
	if err := q.pub.PublishBatch(ctx, msgs); err != nil {
		q.log.WarnContext(ctx, "announce deletions", "tenant", tenant, "error", err)
	}
}

// purgeSubject hard-deletes everything the tenant holds about a subject
// (the GDPR erasure request): its memories, archived and superseded ones
// too, and every memory derived from them, however indirectly (merged,
// reconciled, distilled), whatever that memory's own subject.
func (q *Query) purgeSubject(w http.ResponseWriter, r *http.Request, tenant, subject string) {
	if subject == "" || utf8.RuneCountInString(subject) > memory.MaxNameChars {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "subject",
			Reason: fmt.Sprintf("must be 1-%d characters", memory.MaxNameChars)})
		return
	}
	ids, err := q.subjectClosure(r.Context(), tenant, subject)
	if err != nil {
		q.fail(w, r, "list memories to purge", err)
		return
	}
	// Derived memories go first and the subject's own last: a purge cut
	// short leaves what remains reachable from the subject, so a retry
	// finishes it.
	slices.Reverse(ids)
	deleted, ok := q.deleteIDs(w, r, tenant, "subject", ids)
	if !ok {
		return
	}
	q.log.InfoContext(r.Context(), "purged subject", "tenant", tenant, "subject", subject, "deleted", deleted)
	web.WriteJSON(w, http.StatusOK, DeleteResponse{Deleted: deleted})
}

// subjectClosure lists the subject's memories, then the memories derived
// from those, transitively, each after the one it was reached from.
func (q *Query) subjectClosure(ctx context.Context, tenant, subject string) ([]string, error) {
	var ids []string
	derived := map[string][]string{} // id → ids derived from it
	err := q.store.Scroll(ctx, tenant, everything, func(m memory.Memory) error {
		if m.Subject == subject {
			ids = append(ids, m.ID)
		}
		for _, src := range m.DerivedFrom {
			derived[src] = append(derived[src], m.ID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read memories of tenant %s: %w", tenant, err)
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		seen[id] = true
	}
	for i := 0; i < len(ids); i++ {
		for _, d := range derived[ids[i]] {
			if !seen[d] {
				seen[d] = true
				ids = append(ids, d)
			}
		}
	}
	return ids, nil
}
