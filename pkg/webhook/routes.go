package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/auth"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/web"
)

// maxEndpoints bounds a tenant's endpoints.
const maxEndpoints = 32

// TenantFunc resolves the tenant a request acts for from the one it names
// and its API key (auth.Tenant).
type TenantFunc func(ctx context.Context, requested string) (string, error)

// API serves /v1/webhooks.
type API struct {
	cfg      Config
	store    *Store
	tenant   TenantFunc
	log      *slog.Logger
	now      func() time.Time
	resolver *net.Resolver
}

// NewAPI builds the endpoints' HTTP surface.
func NewAPI(cfg Config, st *Store, tenant TenantFunc, log *slog.Logger, now func() time.Time) *API {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &API{cfg: cfg, store: st, tenant: tenant, log: log, now: now, resolver: net.DefaultResolver}
}

// Routes mounts the routes.
func (a *API) Routes(handle func(pattern string, h http.Handler)) {
	handle("POST /v1/webhooks", http.HandlerFunc(a.create))
	handle("GET /v1/webhooks", http.HandlerFunc(a.list))
	handle("DELETE /v1/webhooks/{id}", http.HandlerFunc(a.remove))
	handle("POST /v1/webhooks/{id}/rotate", http.HandlerFunc(a.rotate))
}

func (a *API) resolveTenant(w http.ResponseWriter, r *http.Request, requested string) (string, bool) {
	t, err := a.tenant(r.Context(), requested)
	if err == nil && !memory.ValidTenant(t) {
		err = &memory.FieldError{Field: "tenant", Reason: "must be 1-64 characters of [A-Za-z0-9_-]"}
	}
	if err != nil {
		a.fail(w, r, "resolve tenant", err)
		return "", false
	}
	return t, true
}

func (a *API) create(w http.ResponseWriter, r *http.Request) {
	var req CreateRequest
	if err := web.DecodeJSON(w, r, &req); err != nil {
		web.WriteError(w, http.StatusBadRequest, "bad_request", err)
		return
	}
	tenant, ok := a.resolveTenant(w, r, req.Tenant)
	if !ok {
		return
	}
	for _, t := range req.Types {
		if !slices.Contains(Types, t) {
			web.WriteError(w, http.StatusBadRequest, "invalid_request", fmt.Errorf("types: unknown event type %q (known: %v)", t, Types))
			return
		}
	}
	if len(req.Description) > 256 {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", errors.New("description: longer than 256 characters"))
		return
	}
	if err := checkURL(r.Context(), req.URL, a.cfg.AllowPrivate, a.resolver); err != nil {
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
		return
	}
	existing, err := a.store.List(r.Context(), tenant)
	if err != nil {
		a.fail(w, r, "list webhooks", err)
		return
	}
	if len(existing) >= maxEndpoints {
		web.WriteError(w, http.StatusConflict, "too_many_webhooks", fmt.Errorf("tenant has %d webhooks, the most allowed", len(existing)))
		return
	}
	now := a.now().UTC()
	ep := Endpoint{ID: newID(), Tenant: tenant, URL: req.URL, Types: slices.Compact(slices.Sorted(slices.Values(req.Types))),
		Description: req.Description, Created: now, Secrets: []Secret{{Key: newSecret(), Created: now}}}
	if err := a.store.Create(r.Context(), ep); err != nil {
		a.fail(w, r, "create webhook", err)
		return
	}
	a.log.InfoContext(r.Context(), "webhook created", "tenant", tenant, "webhook", ep.ID)
	v := ep.view()
	v.Secret = ep.Secrets[0].Key // shown this once
	web.WriteJSON(w, http.StatusCreated, v)
}

func (a *API) list(w http.ResponseWriter, r *http.Request) {
	tenant, ok := a.resolveTenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	eps, err := a.store.List(r.Context(), tenant)
	if err != nil {
		a.fail(w, r, "list webhooks", err)
		return
	}
	resp := ListResponse{Webhooks: make([]View, 0, len(eps))}
	for _, e := range eps {
		resp.Webhooks = append(resp.Webhooks, e.view())
	}
	slices.SortFunc(resp.Webhooks, func(x, y View) int { return x.Created.Compare(y.Created) })
	web.WriteJSON(w, http.StatusOK, resp)
}

func (a *API) remove(w http.ResponseWriter, r *http.Request) {
	tenant, ok := a.resolveTenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	id := r.PathValue("id")
	if err := a.store.Delete(r.Context(), tenant, id); err != nil {
		a.fail(w, r, "delete webhook", err)
		return
	}
	a.log.InfoContext(r.Context(), "webhook deleted", "tenant", tenant, "webhook", id)
	w.WriteHeader(http.StatusNoContent)
}

// rotate makes a new secret; the old ones sign next to it for the grace.
func (a *API) rotate(w http.ResponseWriter, r *http.Request) {
	tenant, ok := a.resolveTenant(w, r, r.URL.Query().Get("tenant"))
	if !ok {
		return
	}
	now := a.now().UTC()
	expires := now.Add(a.cfg.RotationGrace)
	secret := newSecret()
	ep, err := a.store.Update(r.Context(), tenant, r.PathValue("id"), func(e *Endpoint) {
		kept := []Secret{{Key: secret, Created: now}}
		for _, s := range e.Secrets {
			if s.Expires != nil && !now.Before(*s.Expires) {
				continue // out of its grace: dropped
			}
			if s.Expires == nil || s.Expires.After(expires) {
				s.Expires = &expires
			}
			kept = append(kept, s)
		}
		e.Secrets = kept
	})
	if err != nil {
		a.fail(w, r, "rotate webhook secret", err)
		return
	}
	a.log.InfoContext(r.Context(), "webhook secret rotated", "tenant", tenant, "webhook", ep.ID, "grace", a.cfg.RotationGrace)
	v := ep.view()
	v.Secret = secret
	web.WriteJSON(w, http.StatusOK, v)
}

func (a *API) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		web.WriteError(w, http.StatusNotFound, "not_found", err)
	case errors.Is(err, memory.ErrInvalid):
		web.WriteError(w, http.StatusBadRequest, "invalid_request", err)
	case errors.Is(err, auth.ErrForbidden):
		web.WriteError(w, http.StatusForbidden, "forbidden", err)
	case web.IsUnavailable(err):
		web.Unavailable(w, web.RetryAfter, err)
	default:
		a.log.ErrorContext(r.Context(), what, "error", err)
		web.WriteError(w, http.StatusInternalServerError, "internal", fmt.Errorf("%s: %w", what, err))
	}
}
