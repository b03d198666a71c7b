package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// pageSize is how many memories a list page holds; the API pages by id
// with a cursor, so the console never holds more than one page.
const pageSize = 50

// typeNames are the memory types a filter offers.
var typeNames = []string{"policy", "workflow", "pitfall", "architecture", "decision", "preference", "fact", "entity", "style", "artifact", "episode", "procedure"}

// searchK is how many memories a search shows.
const searchK = 30

// filters are the memories page's controls, read from its query string.
type filters struct {
	Q, Layer, Type, Kind, Domain, Subject, Namespace string
	Archived, Superseded                             bool
	Quarantined                                      string // "", "true", "only"
	AsOf, KnownAt                                    string // date or RFC 3339
}

func readFilters(q url.Values) filters {
	return filters{Q: q.Get("q"), Layer: q.Get("layer"), Type: q.Get("type"), Kind: q.Get("kind"), Domain: q.Get("domain"),
		Subject: q.Get("subject"), Namespace: q.Get("namespace"), Archived: q.Get("archived") == "true",
		Superseded: q.Get("superseded") == "true", Quarantined: q.Get("quarantined"), AsOf: q.Get("as_of"), KnownAt: q.Get("known_at")}
}

// query is the filters as a query string (for the next page's link).
func (f filters) query() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "layer": f.Layer, "type": f.Type, "kind": f.Kind, "domain": f.Domain, "subject": f.Subject,
		"namespace": f.Namespace, "quarantined": f.Quarantined, "as_of": f.AsOf, "known_at": f.KnownAt} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Archived {
		v.Set("archived", "true")
	}
	if f.Superseded {
		v.Set("superseded", "true")
	}
	return v
}

type memoriesData struct {
	F       filters
	Layers  []string
	Types   []string
	Kinds   []string
	List    []memory.Memory
	Results []api.RecallResult
	Recall  *api.RecallResponse
	Next    string // the next page's URL
	First   string // the first page's URL, when not on it
}

// parseTime reads a date (2025-06-01) or an RFC 3339 time; "" is zero.
func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return t, &client.Error{Status: http.StatusBadRequest, Field: field, Message: field + " must be a date (2025-06-01) or an RFC 3339 time"}
	}
	return t, nil
}

// memoriesPage lists a tenant's memories a page at a time, or, with a
// query, recalls them with the score explanation.
func (c *Console) memoriesPage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	f := readFilters(r.URL.Query())
	d := memoriesData{F: f, Layers: layers, Kinds: []string{"episodic", "semantic", "procedural"}, Types: typeNames}
	asOf, err := parseTime("as_of", f.AsOf)
	if err == nil {
		var knownAt time.Time
		if knownAt, err = parseTime("known_at", f.KnownAt); err == nil {
			if f.Q != "" {
				err = c.search(r, s, tenant, f, asOf, knownAt, &d)
			} else {
				err = c.list(r, s, tenant, f, asOf, knownAt, &d)
			}
		}
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.pages.render(w, "memories.html", c.view(r, s, "Memories · "+tenant, "memories", d))
}

func (c *Console) list(r *http.Request, s *session, tenant string, f filters, asOf, knownAt time.Time, d *memoriesData) error {
	after := r.URL.Query().Get("after")
	page, err := c.api(s).ListMemories(r.Context(), client.ListOptions{Tenant: tenant, Namespace: f.Namespace, Domain: f.Domain, Limit: pageSize,
		After: after, Archived: f.Archived, Superseded: f.Superseded, AsOf: asOf, KnownAt: knownAt,
		Layer: f.Layer, Type: f.Type, Kind: f.Kind, Subject: f.Subject, Quarantined: f.Quarantined})
	if err != nil {
		return err
	}
	d.List = page.Memories
	base := tenantURL(tenant, "memories")
	if page.Next != "" {
		q := f.query()
		q.Set("after", page.Next)
		d.Next = base + "?" + q.Encode()
	}
	if after != "" {
		d.First = base + "?" + f.query().Encode()
	}
	return nil
}

func (c *Console) search(r *http.Request, s *session, tenant string, f filters, asOf, knownAt time.Time, d *memoriesData) error {
	req := api.RecallRequest{Tenant: tenant, Namespace: f.Namespace, Query: f.Q, K: searchK, PerDomain: searchK, Dry: true,
		Filters: api.RecallFilters{IncludeArchived: f.Archived, IncludeSuperseded: f.Superseded, IncludeQuarantined: f.Quarantined != ""}}
	if !asOf.IsZero() {
		req.AsOf = api.Instant{Time: asOf}
	}
	if !knownAt.IsZero() {
		req.KnownAt = api.Instant{Time: knownAt}
	}
	if f.Layer != "" {
		req.Filters.Layers = []memory.Layer{memory.Layer(f.Layer)}
	}
	if f.Type != "" {
		req.Filters.Types = []memory.Type{memory.Type(f.Type)}
	}
	if f.Kind != "" {
		req.Filters.Kinds = []memory.Kind{memory.Kind(f.Kind)}
	}
	if f.Domain != "" {
		req.Filters.Domains = []string{f.Domain}
	}
	if f.Subject != "" {
		req.Filters.Subjects = []string{f.Subject}
	}
	resp, err := c.api(s).Recall(r.Context(), req)
	if err != nil {
		return err
	}
	d.Recall = &resp
	d.Results = resp.Memories
	return nil
}
