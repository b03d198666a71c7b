package console

import (
	"net/http"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/client"
)

// maxEpochLookups bounds the audit reads of the tenants page (the last
// epoch of each of the first tenants).
const maxEpochLookups = 50

type tenantRow struct {
	api.TenantSummary
	LastEpoch   string
	LastEpochAt string
	Bars        chartHTML
}

type tenantsData struct {
	Tenants  []tenantRow
	Pipeline *pipelineSummary
}

type pipelineSummary struct {
	Ready       bool
	Lag         uint64
	DeadLetters uint64
}

// tenantsPage: every tenant an admin key sees (a tenant key's own), its
// memories by layer, growth, last epoch, and the queue's lag.
func (c *Console) tenantsPage(w http.ResponseWriter, r *http.Request, s *session) {
	cl := c.api(s)
	ts, err := cl.Tenants(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := tenantsData{}
	for i, t := range ts {
		row := tenantRow{TenantSummary: t, Bars: layerBar(t.Layers)}
		if i < maxEpochLookups {
			row.LastEpoch, row.LastEpochAt = lastEpoch(r, cl, t.Tenant)
		}
		d.Tenants = append(d.Tenants, row)
	}
	if s.who.Admin {
		if p, err := cl.Pipeline(r.Context()); err == nil {
			sum := &pipelineSummary{Ready: p.Ready}
			for _, c := range p.Consumers {
				sum.Lag += c.Pending
			}
			for _, st := range p.Streams {
				if st.Stream == "RECOLLECT_DLQ" {
					sum.DeadLetters = st.Messages
				}
			}
			d.Pipeline = sum
		}
	}
	c.pages.render(w, "tenants.html", c.view(r, s, "Tenants", "tenants", d))
}

// lastEpoch is the newest epoch in the tenant's audit log ("" when none,
// or when the log cannot be read: the page still shows the counts).
func lastEpoch(r *http.Request, cl *client.Client, tenant string) (string, string) {
	resp, err := cl.Audit(r.Context(), client.AuditOptions{Tenant: tenant, Limit: 200})
	if err != nil {
		return "", ""
	}
	for _, e := range resp.Entries {
		if e.Epoch != "" {
			return e.Epoch, when(e.Time)
		}
	}
	return "", ""
}

func (c *Console) pipelinePage(w http.ResponseWriter, r *http.Request, s *session) {
	p, err := c.api(s).Pipeline(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.pages.render(w, "pipeline.html", c.view(r, s, "Pipeline health", "pipeline", p))
}
