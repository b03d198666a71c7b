package query

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

// AuditResponse is the answer of GET /v1/audit: the tenant's audit
// entries, newest first.
type AuditResponse struct {
	Tenant  string           `json:"tenant"`
	Entries []auditlog.Entry `json:"entries"`
}

// SetAudit gives the module the audit log to serve GET /v1/audit from;
// call it before Routes. Without it the route is not mounted.
func (q *Query) SetAudit(r auditlog.Reader) { q.audit = r }

func (q *Query) auditLog(w http.ResponseWriter, r *http.Request) {
	params := r.URL.Query()
	tenant, ok := q.tenant(w, r, params.Get("tenant"))
	if !ok {
		return
	}
	aq, err := auditQuery(params)
	if err != nil {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	aq.Tenant = tenant
	entries, err := q.audit.Read(r.Context(), aq)
	if err != nil {
		q.fail(w, r, "read audit log", err)
		return
	}
	web.WriteJSON(w, http.StatusOK, AuditResponse{Tenant: tenant, Entries: entries})
}

// auditQuery reads the filters of GET /v1/audit; an error names the
// parameter and its limit.
func auditQuery(params url.Values) (auditlog.Query, error) {
	var q auditlog.Query
	for _, p := range []struct {
		name string
		max  int
		dst  *string
	}{
		{"phase", auditlog.MaxNameChars, &q.Phase},
		{"op", auditlog.MaxNameChars, &q.Op},
		{"memory", memory.MaxIDChars, &q.MemoryID},
		{"epoch", auditlog.MaxEpochChars, &q.Epoch},
	} {
		v := params.Get(p.name)
		if len(v) > p.max {
			return q, &memory.FieldError{Field: p.name, Reason: fmt.Sprintf("is longer than %d characters", p.max)}
		}
		*p.dst = v
	}
	if s := params.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > auditlog.MaxLimit {
			return q, &memory.FieldError{Field: "limit", Reason: fmt.Sprintf("must be an integer between 1 and %d (got %q)", auditlog.MaxLimit, s)}
		}
		q.Limit = n
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		s := params.Get(p.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return q, &memory.FieldError{Field: p.name, Reason: fmt.Sprintf("must be an RFC 3339 time such as 2025-06-01T12:00:00Z (got %q)", s)}
		}
		*p.dst = t
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return q, &memory.FieldError{Field: "until", Reason: "must be after since"}
	}
	return q, nil
}
