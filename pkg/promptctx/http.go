package promptctx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

// Routes registers POST /v1/context and GET /v1/resume. resolveTenant maps
// the tenant a request names to the one it may use (with auth, the API
// key's); an error that is a validation error (memory.ErrInvalid) answers
// 400, any other 403. A nil resolveTenant takes the named tenant.
func (a *Assembler) Routes(handle func(pattern string, h http.Handler), resolveTenant func(ctx context.Context, requested string) (string, error)) {
	if resolveTenant == nil {
		resolveTenant = func(_ context.Context, t string) (string, error) { return t, nil }
	}
	handle("POST /v1/context", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req ContextRequest
		if err := web.DecodeJSON(w, r, &req); err != nil {
			web.WriteError(w, http.StatusBadRequest, "bad_request", err)
			return
		}
		t, err := resolveTenant(r.Context(), req.Tenant)
		if err != nil {
			a.denied(w, err)
			return
		}
		req.Tenant = t
		resp, err := a.Context(r.Context(), req)
		if err != nil {
			a.fail(w, r, req.Tenant, "assemble context", err)
			return
		}
		web.WriteJSON(w, http.StatusOK, resp)
	}))
	handle("GET /v1/resume", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		req := ResumeRequest{Tenant: q.Get("tenant"), Namespace: q.Get("namespace"), SessionID: q.Get("session_id")}
		if s := q.Get("budget"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				web.WriteError(w, http.StatusBadRequest, "invalid_request", &memory.FieldError{Field: "budget", Reason: "must be a whole number of tokens"})
				return
			}
			req.Budget = n
		}
		t, err := resolveTenant(r.Context(), req.Tenant)
		if err != nil {
			a.denied(w, err)
			return
		}
		req.Tenant = t
		resp, err := a.Resume(r.Context(), req)
		if err != nil {
			a.fail(w, r, req.Tenant, "resume", err)
			return
		}
		web.WriteJSON(w, http.StatusOK, resp)
	}))
}

func (a *Assembler) denied(w http.ResponseWriter, err error) {
	if errors.Is(err, memory.ErrInvalid) {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	web.WriteError(w, http.StatusForbidden, "forbidden", err)
}

func (a *Assembler) fail(w http.ResponseWriter, r *http.Request, tenant, what string, err error) {
	switch {
	case errors.Is(err, memory.ErrInvalid):
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
	case web.IsUnavailable(err):
		web.Unavailable(w, web.RetryAfter, err)
	default:
		a.log.ErrorContext(r.Context(), what, "tenant", tenant, "error", err)
		web.WriteError(w, http.StatusInternalServerError, "internal", fmt.Errorf("%s: %w", what, err))
	}
}
