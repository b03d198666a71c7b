package query

import (
	"fmt"
	"github.com/recollect-dev/recollect/pkg/api"
	"net/http"
	"time"

	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/web"
)

// UsageResponse is the answer of GET /v1/usage: model usage totals per
// component and model (what `recollect usage --url` prints).
type UsageResponse = api.UsageResponse

// SetUsage lets GET /v1/usage read the model usage log (the local log in
// the data dir, or ClickHouse).
func (q *Query) SetUsage(r usage.Reader) { q.usage = r }

// usageTotals answers GET /v1/usage?tenant=&since=. A tenant key reads its
// own tenant only; an admin key, or a server without keys, reads every
// tenant unless one is named.
func (q *Query) usageTotals(w http.ResponseWriter, r *http.Request) {
	tenant := r.URL.Query().Get("tenant")
	if p, ok := auth.FromContext(r.Context()); ok && !p.Admin {
		t, err := auth.Tenant(r.Context(), tenant)
		if err != nil {
			q.fail(w, r, "resolve tenant", err)
			return
		}
		tenant = t
	}
	if tenant != "" && !memory.ValidTenant(tenant) {
		q.fail(w, r, "read usage", &memory.FieldError{Field: "tenant", Reason: "must be 1-64 characters of [A-Za-z0-9_-]"})
		return
	}
	sel := usage.Query{Tenant: tenant}
	if s := r.URL.Query().Get("since"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			q.fail(w, r, "read usage", &memory.FieldError{Field: "since", Reason: fmt.Sprintf("must be a positive duration such as 24h (got %q)", s)})
			return
		}
		sel.Since = q.now().Add(-d)
	}
	totals, err := q.usage.Totals(r.Context(), sel)
	if err != nil {
		q.fail(w, r, "read usage", err)
		return
	}
	if totals == nil {
		totals = []usage.Total{}
	}
	web.WriteJSON(w, http.StatusOK, UsageResponse{Totals: totals})
}
