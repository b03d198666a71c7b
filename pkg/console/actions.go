package console

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/client"
)

// actionsPage: the tenant's actions that need a form of their own: purge
// a subject (typed twice), run an epoch, export.
func (c *Console) actionsPage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	st, err := c.api(s).Stats(r.Context(), tenant)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.pages.render(w, "actions.html", c.view(r, s, "Actions · "+tenant, "actions", st))
}

// forget deletes one memory through the API.
func (c *Console) forget(w http.ResponseWriter, r *http.Request, s *session) {
	tenant, id := r.PathValue("tenant"), r.PathValue("id")
	if err := c.api(s).DeleteMemory(r.Context(), tenant, id); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, tenantURL(tenant, "memories")+"?done="+urlQueryEscape("Memory "+id+" forgotten."), http.StatusSeeOther)
}

// purge erases everything the tenant holds about a subject once the
// subject was typed twice, and shows the erasure receipt.
func (c *Console) purge(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	subject := strings.TrimSpace(r.PostFormValue("subject"))
	if subject == "" || subject != strings.TrimSpace(r.PostFormValue("confirm")) {
		c.fail(w, r, s, &client.Error{Status: http.StatusBadRequest, Field: "confirm",
			Message: "confirm must repeat the subject exactly: nothing was purged"})
		return
	}
	resp, err := c.api(s).Purge(r.Context(), tenant, subject)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if resp.Receipt == nil {
		c.fail(w, r, s, &client.Error{Status: http.StatusBadGateway, Message: fmt.Sprintf("the purge deleted %d memories but gave no receipt", resp.Deleted)})
		return
	}
	q := url.Values{"deleted": {fmt.Sprint(resp.Deleted)}, "subject": {subject}}
	http.Redirect(w, r, tenantURL(tenant, "erasures/"+url.PathEscape(resp.Receipt.ID))+"?"+q.Encode(), http.StatusSeeOther)
}

type erasureData struct {
	Receipt api.ErasureReceipt
	Deleted string
	Subject string
	Running bool
}

// erasurePage shows a purge's receipt: where the subject was erased and
// whether each place is done. While it runs the page reloads itself.
func (c *Console) erasurePage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant, id := r.PathValue("tenant"), r.PathValue("id")
	rc, err := c.api(s).Erasure(r.Context(), tenant, id)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := erasureData{Receipt: rc, Deleted: r.URL.Query().Get("deleted"), Subject: r.URL.Query().Get("subject"), Running: rc.State == api.ErasureRunning}
	c.pages.render(w, "erasure.html", c.view(r, s, "Erasure receipt "+id, "actions", d))
}

// consolidate requests an epoch and opens the audit log on it.
func (c *Console) consolidate(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	resp, err := c.api(s).Consolidate(r.Context(), api.ConsolidateRequest{Tenant: tenant})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	msg := "Epoch " + resp.Epoch + " requested: its entries appear below as it runs (reload)."
	if resp.TooYoung > 0 {
		msg += fmt.Sprintf(" %d buffer memories are younger than the triage minimum age and wait for a later epoch.", resp.TooYoung)
	}
	q := url.Values{"epoch": {resp.Epoch}, "done": {msg}}
	http.Redirect(w, r, tenantURL(tenant, "audit")+"?"+q.Encode(), http.StatusSeeOther)
}

// export streams the tenant's memories as NDJSON (GET /v1/export with the
// session's key), as a download.
func (c *Console) export(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, c.base+"/v1/export?tenant="+url.QueryEscape(tenant), nil)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.fail(w, r, s, fmt.Errorf("export: %w", err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		c.fail(w, r, s, &client.Error{Status: resp.StatusCode, Message: strings.TrimSpace(string(body))})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="`+tenant+`-memories.ndjson"`)
	if _, err := io.Copy(w, resp.Body); err != nil {
		c.log.WarnContext(r.Context(), "console export cut short", "tenant", tenant, "error", err)
	}
}
