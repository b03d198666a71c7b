package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/web"
)

// DeleteResponse is the answer of DELETE /v1/memories. A purge of a
// subject adds its erasure receipt (read it again, once complete, from
// GET /v1/erasures/{id}).
type DeleteResponse struct {
	Deleted int            `json:"deleted"`
	Receipt *erase.Receipt `json:"receipt,omitempty"`
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
	target, err := q.subjectClosure(r.Context(), tenant, subject)
	if err != nil {
		q.fail(w, r, "list memories to purge", err)
		return
	}
	// Derived memories go first and the subject's own last: a purge cut
	// short leaves what remains reachable from the subject, so a retry
	// finishes it.
	ids := slices.Clone(target.IDs)
	slices.Reverse(ids)
	deleted, ok := q.deleteIDs(w, r, tenant, "subject", ids)
	if !ok {
		return
	}
	if err := q.unquote(r.Context(), tenant, target.Texts); err != nil {
		q.fail(w, r, "remove the purged subject's words quoted by other messages", err)
		return
	}
	q.log.InfoContext(r.Context(), "purged subject", "tenant", tenant, "subject", subject, "deleted", deleted)
	resp := DeleteResponse{Deleted: deleted}
	if q.eraser != nil {
		// The copies elsewhere: files, audit, streams, topics, caches.
		rc := q.eraser.Start(r.Context(), target, erase.PlaceReceipt{Place: "store", State: erase.StateErased, Erased: deleted,
			Note: "memories deleted, archived, superseded and derived ones too"})
		resp.Receipt = &rc
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// erasure answers GET /v1/erasures/{id}: a purge's receipt.
func (q *Query) erasure(w http.ResponseWriter, r *http.Request) {
	tenant, ok := q.tenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	if q.eraser == nil {
		web.WriteError(w, http.StatusNotFound, "not_found", errors.New("this process keeps no erasure receipts"))
		return
	}
	rc, err := q.eraser.Receipt(r.Context(), tenant, r.PathValue("id"))
	if errors.Is(err, erase.ErrNoReceipt) {
		web.WriteError(w, http.StatusNotFound, "not_found", err)
		return
	}
	if err != nil {
		q.fail(w, r, "read erasure receipt", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, rc)
}

// SetEraser gives the module what carries a subject purge to every copy.
func (q *Query) SetEraser(e *erase.Eraser) { q.eraser = e }

// subjectClosure lists the subject's memories (and the transcript
// memories without a subject of the subject's conversations: the
// assistant's side of them), then the memories derived from those,
// transitively, each after the one it was reached from, with their texts
// and source events.
func (q *Query) subjectClosure(ctx context.Context, tenant, subject string) (erase.Target, error) {
	var ids []string
	derived := map[string][]string{} // id → ids derived from it
	type copies struct {
		text, sources []string
		namespace     string
	}
	of := map[string]copies{}
	// The subject's conversations: what was said in them without a
	// subject of its own (the assistant's turns) is part of them.
	sessions := map[string]bool{}
	var unowned []memory.Memory // transcript memories without a subject
	err := q.store.Scroll(ctx, tenant, everything, func(m memory.Memory) error {
		switch {
		case m.Subject == subject:
			ids = append(ids, m.ID)
			if m.Transcript() && m.Session != "" {
				sessions[m.Namespace+"\x00"+m.Session] = true
			}
		case m.Subject == "" && m.Transcript():
			unowned = append(unowned, memory.Memory{ID: m.ID, Namespace: m.Namespace, Session: m.Session})
		}
		for _, src := range m.DerivedFrom {
			derived[src] = append(derived[src], m.ID)
		}
		of[m.ID] = copies{text: []string{m.Content}, sources: m.SourceIDs, namespace: m.Namespace}
		return nil
	})
	if err != nil {
		return erase.Target{}, fmt.Errorf("read memories of tenant %s: %w", tenant, err)
	}
	for _, m := range unowned {
		if sessions[m.Namespace+"\x00"+m.Session] {
			ids = append(ids, m.ID)
		}
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
	t := erase.Target{Tenant: tenant, Subject: subject, IDs: ids}
	for _, id := range ids {
		t.Texts = append(t.Texts, of[id].text...)
		t.Events = append(t.Events, of[id].sources...)
		if ns := of[id].namespace; !slices.Contains(t.Namespaces, ns) {
			t.Namespaces = append(t.Namespaces, ns)
		}
	}
	return t, nil
}

// unquote clears the evidence of the transcript memories left that quote
// a purged message (the message said before them, as context): another
// speaker's reply keeps what it said, not the purged subject's words.
func (q *Query) unquote(ctx context.Context, tenant string, purged []string) error {
	quoted := make(map[string]bool, len(purged))
	for _, t := range purged {
		quoted[memory.TranscriptContext(t)] = true
	}
	var fix []string
	f := everything
	f.Tags = []string{memory.TranscriptTag}
	err := q.store.Scroll(ctx, tenant, f, func(m memory.Memory) error {
		if m.Evidence != "" && quoted[m.Evidence] {
			fix = append(fix, m.ID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read transcript memories of tenant %s: %w", tenant, err)
	}
	// Each cleared as it is when written (conditionally where the store
	// can): a write since the scroll neither brings the words back nor is
	// lost.
	for _, id := range fix {
		_, err := store.Update(ctx, q.store, tenant, id, false, func(m *memory.Memory) (bool, error) {
			if m.Evidence == "" || !quoted[m.Evidence] {
				return false, nil
			}
			m.Evidence, m.Vector, m.ChunkVectors = "", nil, nil
			return true, nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("clear the quoted context of %s of tenant %s: %w", id, tenant, err)
		}
	}
	return nil
}
