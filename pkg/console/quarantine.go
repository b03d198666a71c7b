package console

import (
	"net/http"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

type quarantineData struct {
	List  []memory.Memory
	Next  string
	First string
}

// quarantinePage: the tenant's quarantined memories, a page at a time,
// each with its reason and the review actions.
func (c *Console) quarantinePage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	after := r.URL.Query().Get("after")
	page, err := c.api(s).ListMemories(r.Context(), client.ListOptions{Tenant: tenant, Limit: pageSize, After: after,
		Archived: true, Superseded: true, Quarantined: "only"})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := quarantineData{List: page.Memories}
	if page.Next != "" {
		d.Next = tenantURL(tenant, "quarantine") + "?after=" + urlQueryEscape(page.Next)
	}
	if after != "" {
		d.First = tenantURL(tenant, "quarantine")
	}
	c.pages.render(w, "quarantine.html", c.view(r, s, "Quarantine · "+tenant, "quarantine", d))
}

// reviewQuarantine applies release, keep or delete through the API, which
// audits it (and refuses a tenant key).
func (c *Console) reviewQuarantine(w http.ResponseWriter, r *http.Request, s *session) {
	tenant, id := r.PathValue("tenant"), r.PathValue("id")
	action := r.PostFormValue("action")
	if _, err := c.api(s).ReviewQuarantine(r.Context(), id, api.QuarantineRequest{Tenant: tenant, Action: action, Reason: r.PostFormValue("reason")}); err != nil {
		c.fail(w, r, s, err)
		return
	}
	done := map[string]string{api.QuarantineRelease: "released", api.QuarantineKeep: "kept in quarantine", api.QuarantineDelete: "deleted"}[action]
	http.Redirect(w, r, tenantURL(tenant, "quarantine")+"?done="+urlQueryEscape("Memory "+id+" "+done+" (audited)."), http.StatusSeeOther)
}
