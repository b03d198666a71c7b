package console

import (
	"net/http"
	"slices"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

type memoryData struct {
	M        memory.Memory
	History  api.History
	Timeline chartHTML
	Audit    []auditRow
	// Chain lists the versions newest last, as the history gives them.
	Chain []api.HistoryVersion
	// DerivedInto are the memories an epoch made from this one (merged,
	// reconciled, distilled), as its audit entries record them.
	DerivedInto []string
}

// memoryPage: a memory's fields, provenance, its version chain on both
// clocks, what it derives from and what replaced it, and every audit
// entry that touched it.
func (c *Console) memoryPage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant, id := r.PathValue("tenant"), r.PathValue("id")
	cl := c.api(s)
	m, err := cl.GetMemory(r.Context(), tenant, id)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	h, err := cl.History(r.Context(), tenant, id)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := memoryData{M: m, History: h, Chain: h.Chain}
	var spans []span
	for _, v := range h.Chain {
		sp := span{Label: v.ID, ValidFrom: v.ValidFrom, RecordFrom: v.CreatedAt, Current: v.ID == id}
		if v.ValidUntil != nil {
			sp.ValidTo = *v.ValidUntil
		}
		if v.InvalidAt != nil {
			sp.RecordTo = *v.InvalidAt
		}
		spans = append(spans, sp)
	}
	if !slices.ContainsFunc(h.Chain, func(v api.HistoryVersion) bool { return v.ID == id }) {
		sp := span{Label: m.ID, ValidFrom: m.ValidFrom, RecordFrom: m.CreatedAt, Current: true}
		if m.ValidUntil != nil {
			sp.ValidTo = *m.ValidUntil
		}
		if m.InvalidAt != nil {
			sp.RecordTo = *m.InvalidAt
		}
		spans = append(spans, sp)
	}
	d.Timeline = timeline(spans, c.now())
	// The audit log is optional (a deployment may not serve it): the page
	// shows the memory without it.
	if resp, err := cl.Audit(r.Context(), client.AuditOptions{Tenant: tenant, MemoryID: id, Limit: 100}); err == nil {
		d.Audit = auditRows(resp.Entries)
		d.DerivedInto = derivedInto(d.Audit, id)
	}
	c.pages.render(w, "memory.html", c.view(r, s, "Memory "+id, "memories", d))
}

// derivedInto lists the memories the audit rows show created from id.
func derivedInto(rows []auditRow, id string) []string {
	var out []string
	for _, r := range rows {
		for _, m := range r.Created {
			if slices.Contains(m.DerivedFrom, id) && !slices.Contains(out, m.ID) {
				out = append(out, m.ID)
			}
		}
	}
	return out
}
