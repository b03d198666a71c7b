package query

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/web"
)

// The operator's routes: who a key is, the tenants (an admin key's all, a
// tenant key's own) and
// the review of quarantined memories (admin keys only). The console at /ui
// reads and acts through them.

// errNotAdmin refuses a tenant key an operator's route.
var errNotAdmin = fmt.Errorf("this route needs an admin key: %w", auth.ErrForbidden)

// admin reports whether the request may use the operator's routes: an
// admin key, or a server without keys (loopback or --insecure).
func admin(r *http.Request) bool {
	p, ok := auth.FromContext(r.Context())
	return !ok || p.Admin
}

func (q *Query) whoami(w http.ResponseWriter, r *http.Request) {
	p, ok := auth.FromContext(r.Context())
	if !ok {
		web.WriteJSON(w, http.StatusOK, api.WhoAmI{Admin: true})
		return
	}
	web.WriteJSON(w, http.StatusOK, api.WhoAmI{Auth: true, Key: p.Name, Tenant: p.Tenant, Admin: p.Admin})
}

func (q *Query) tenants(w http.ResponseWriter, r *http.Request) {
	var names []string
	if p, ok := auth.FromContext(r.Context()); ok && !p.Admin {
		names = []string{p.Tenant} // a tenant key sees its own tenant only
	} else {
		var err error
		if names, err = q.store.Tenants(r.Context()); err != nil {
			q.fail(w, r, "list tenants", err)
			return
		}
		slices.Sort(names)
	}
	resp := api.TenantsResponse{Tenants: make([]api.TenantSummary, 0, len(names))}
	for _, t := range names {
		s, err := q.tenantSummary(r, t)
		if err != nil {
			q.fail(w, r, "count tenant "+t, err)
			return
		}
		resp.Tenants = append(resp.Tenants, s)
	}
	web.WriteJSON(w, http.StatusOK, resp)
}

// tenantSummary counts with the store's Count, one call per figure:
// nothing is loaded.
func (q *Query) tenantSummary(r *http.Request, tenant string) (api.TenantSummary, error) {
	s := api.TenantSummary{Tenant: tenant, Layers: map[string]int{}}
	count := func(f store.Filter) (int, error) { return q.store.Count(r.Context(), tenant, f) }
	var err error
	if s.Memories, err = count(everything); err != nil {
		return s, err
	}
	day := q.now().Add(-24 * time.Hour)
	for _, c := range []struct {
		dst   *int
		since time.Time
	}{{&s.Created24h, day}, {&s.Created7d, day.Add(-6 * 24 * time.Hour)}} {
		f := everything
		f.CreatedAfter = c.since
		if *c.dst, err = count(f); err != nil {
			return s, err
		}
	}
	for _, l := range []memory.Layer{memory.LayerBuffer, memory.LayerWorking, memory.LayerCore} {
		f := everything
		f.Layers = []memory.Layer{l}
		if s.Layers[string(l)], err = count(f); err != nil {
			return s, err
		}
	}
	// Each standing apart: everything minus the memories without it.
	for _, c := range []struct {
		dst  *int
		drop func(*store.Filter)
	}{
		{&s.Archived, func(f *store.Filter) { f.IncludeArchived = false }},
		{&s.Superseded, func(f *store.Filter) { f.IncludeSuperseded = false }},
		{&s.Quarantined, func(f *store.Filter) { f.IncludeQuarantined = false }},
	} {
		f := everything
		c.drop(&f)
		n, err := count(f)
		if err != nil {
			return s, err
		}
		*c.dst = s.Memories - n
	}
	return s, nil
}

// SetAuditWriter gives the module the audit log quarantine reviews are
// recorded in; call it before Routes. Without it the review route is not
// mounted.
func (q *Query) SetAuditWriter(w auditlog.Writer) { q.auditW = w }

// reviewQuarantine answers POST /v1/memories/{id}/quarantine: release,
// keep or delete a quarantined memory. The audit entry is written first:
// a review that cannot be recorded is not applied. Repeating a review
// records it again and changes nothing more.
func (q *Query) reviewQuarantine(w http.ResponseWriter, r *http.Request) {
	var req api.QuarantineRequest
	if !q.decode(w, r, &req, &req.Tenant) {
		return
	}
	if !admin(r) {
		q.fail(w, r, "review quarantine", errNotAdmin)
		return
	}
	actions := []string{api.QuarantineRelease, api.QuarantineKeep, api.QuarantineDelete}
	if !slices.Contains(actions, req.Action) {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "action",
			Reason: fmt.Sprintf("must be one of %v (got %q)", actions, req.Action)})
		return
	}
	if len(req.Reason) > auditlog.MaxReasonChars {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "reason",
			Reason: fmt.Sprintf("is longer than %d characters", auditlog.MaxReasonChars)})
		return
	}
	id := r.PathValue("id")
	m, err := q.store.Get(r.Context(), req.Tenant, id)
	if err != nil {
		q.fail(w, r, "review quarantine", err)
		return
	}
	if !m.Quarantined() && req.Action != api.QuarantineRelease {
		web.WriteError(w, http.StatusConflict, "not_quarantined", fmt.Errorf("memory %q is not quarantined", id))
		return
	}
	after := m.Clone()
	switch req.Action {
	case api.QuarantineRelease:
		after.Quarantine = ""
		after.ModifiedAt = q.now().UTC()
	case api.QuarantineDelete:
		after = memory.Memory{}
	}
	reason := req.Reason
	if reason == "" {
		reason = "operator review: " + req.Action
	}
	entry := auditlog.Entry{Time: q.now().UTC(), Tenant: req.Tenant, Phase: "quarantine", Op: req.Action, MemoryIDs: []string{id},
		Before: auditlog.Snapshot(m), Applied: true, Reason: reason, Decider: auditlog.DeciderOperator}
	if after.ID != "" {
		entry.After = auditlog.Snapshot(after)
	}
	if p, ok := auth.FromContext(r.Context()); ok {
		entry.Reason += " (key " + p.Name + ")"
	}
	if err := q.auditW.Write(r.Context(), []auditlog.Entry{entry}); err != nil {
		q.fail(w, r, "record quarantine review", err)
		return
	}
	resp := api.QuarantineResponse{Tenant: req.Tenant, ID: id, Action: req.Action}
	switch {
	case req.Action == api.QuarantineDelete:
		if err := q.store.Delete(r.Context(), req.Tenant, id); err != nil {
			q.fail(w, r, "delete quarantined memory", err)
			return
		}
		q.deleted.WithLabelValues("id").Inc()
		q.announceDeleted(r.Context(), req.Tenant, []string{id})
	case req.Action == api.QuarantineRelease && m.Quarantined():
		// Applied to the memory as it is now (conditionally where the
		// store can): a reinforcement since the read above is kept.
		released, err := store.Update(r.Context(), q.store, req.Tenant, id, false, func(m *memory.Memory) (bool, error) {
			m.Quarantine = ""
			m.ModifiedAt = after.ModifiedAt
			return true, nil
		})
		if err != nil {
			q.fail(w, r, "release quarantined memory", err)
			return
		}
		after = released
		q.announceUpdated(r, &after)
		fallthrough
	default:
		after.Vector = nil
		resp.Memory = &after
	}
	q.log.InfoContext(r.Context(), "quarantine reviewed", "tenant", req.Tenant, "id", id, "action", req.Action)
	web.WriteJSON(w, http.StatusOK, resp)
}

// announceUpdated publishes a memory's change on the tenant's stored
// subject (webhooks, waiters); a failure is logged, the change stands.
func (q *Query) announceUpdated(r *http.Request, m *memory.Memory) {
	data, err := json.Marshal(memory.StoredEvent{Tenant: m.Tenant, ID: m.ID, Op: memory.StoredUpdated, Domain: string(m.Domain),
		State: memory.StoredState(m)})
	if err == nil {
		err = q.pub.Publish(r.Context(), bus.Msg{Subject: bus.StoredSubject(m.Tenant),
			ID: "released:" + m.Tenant + ":" + m.ID + ":" + m.ModifiedAt.Format(time.RFC3339Nano), Data: data})
	}
	if err != nil {
		q.log.WarnContext(r.Context(), "announce quarantine release", "tenant", m.Tenant, "error", err)
	}
}
