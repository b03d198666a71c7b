package console

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Session bounds: a session ends after idleTTL without a request; the
// table holds at most maxSessions (the oldest goes first).
const (
	idleTTL     = 8 * time.Hour
	maxSessions = 10000
)

// Console serves the pages at /ui.
type Console struct {
	base     string // this process's API, e.g. http://127.0.0.1:7700
	hc       *http.Client
	log      *slog.Logger
	now      func() time.Time
	sessions *sessions
	pages    *pages
	prices   usage.Prices
}

// Option adjusts a Console.
type Option func(*Console)

// WithLogger logs refused logins and failed API calls.
func WithLogger(l *slog.Logger) Option { return func(c *Console) { c.log = l } }

// WithClock injects the clock sessions expire on.
func WithClock(now func() time.Time) Option { return func(c *Console) { c.now = now } }

// WithHTTPClient is the client the pages call the API with (TLS settings
// of a listener with its own certificate).
func WithHTTPClient(h *http.Client) Option { return func(c *Console) { c.hc = h } }

// New builds the console over the API at baseURL (the listener's own URL).
func New(baseURL string, opts ...Option) (*Console, error) {
	c := &Console{base: strings.TrimRight(baseURL, "/"), hc: http.DefaultClient, log: slog.New(slog.DiscardHandler), now: time.Now}
	for _, o := range opts {
		o(c)
	}
	c.sessions = newSessions(idleTTL, maxSessions, c.now)
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	c.pages = p
	return c, nil
}

// Mount registers the console's routes; / redirects to /ui/.
func (c *Console) Mount(handle func(pattern string, h http.Handler)) {
	h := func(pattern string, f http.HandlerFunc) { handle(pattern, f) }
	h("GET /{$}", redirect("/ui/"))
	h("GET /ui", redirect("/ui/"))
	h("GET /ui/assets/{file}", c.asset)
	h("GET /ui/login", c.loginPage)
	h("POST /ui/login", c.login)
	h("POST /ui/logout", c.action(c.logout))
	h("GET /ui/{$}", c.page(c.tenantsPage))
	h("GET /ui/pipeline", c.page(c.pipelinePage))
	h("GET /ui/t/{tenant}/{$}", c.page(func(w http.ResponseWriter, r *http.Request, _ *session) {
		http.Redirect(w, r, tenantURL(r.PathValue("tenant"), "memories"), http.StatusSeeOther)
	}))
	h("GET /ui/t/{tenant}/memories", c.page(c.memoriesPage))
	h("GET /ui/t/{tenant}/memories/{id}", c.page(c.memoryPage))
	h("POST /ui/t/{tenant}/memories/{id}/forget", c.action(c.forget))
	h("GET /ui/t/{tenant}/topics", c.page(c.topicsPage))
	h("GET /ui/t/{tenant}/audit", c.page(c.auditPage))
	h("GET /ui/t/{tenant}/quarantine", c.page(c.quarantinePage))
	h("POST /ui/t/{tenant}/quarantine/{id}", c.action(c.reviewQuarantine))
	h("GET /ui/t/{tenant}/usage", c.page(c.usagePage))
	h("GET /ui/t/{tenant}/actions", c.page(c.actionsPage))
	h("POST /ui/t/{tenant}/purge", c.action(c.purge))
	h("GET /ui/t/{tenant}/erasures/{id}", c.page(c.erasurePage))
	h("POST /ui/t/{tenant}/consolidate", c.action(c.consolidate))
	h("GET /ui/t/{tenant}/export", c.page(c.export))
}

func redirect(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusSeeOther) }
}

// api is the API as the session's key sees it.
func (c *Console) api(s *session) *client.Client {
	return client.New(c.base, client.WithAPIKey(s.key), client.WithHTTPClient(c.hc), client.WithRetries(1),
		client.WithMaxRetryWait(2*time.Second), client.WithUserAgent("recollect-console"))
}

// headers every console answer carries: nothing from another origin,
// no framing, no sniffing, nothing cached.
func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// handler is a page or an action of a logged-in session.
type handler func(w http.ResponseWriter, r *http.Request, s *session)

// session returns the request's live session.
func (c *Console) session(r *http.Request) (*session, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, false
	}
	return c.sessions.get(ck.Value)
}

// page serves a GET for a session; without one it sends the browser to
// the login form, which brings it back. A tenant in the path must be a
// valid tenant name (whether the key may see it is the API's answer).
func (c *Console) page(f handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		headers(w)
		s, ok := c.session(r)
		if !ok {
			http.Redirect(w, r, "/ui/login?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if t := r.PathValue("tenant"); t != "" && !memory.ValidTenant(t) {
			c.fail(w, r, s, &client.Error{Status: http.StatusBadRequest, Message: "tenant must be 1-64 characters of [A-Za-z0-9_-]"})
			return
		}
		f(w, r, s)
	}
}

// errCSRF refuses an action without its session's token.
var errCSRF = errors.New("this form is stale or came from another site (its CSRF token does not match your session): reload the page and try again")

// action serves a POST for a session: the form must carry the session's
// CSRF token and the request must come from this origin.
func (c *Console) action(f handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		headers(w)
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		s, ok := c.session(r)
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			c.pages.render(w, "login.html", view{Title: "Log in", Error: "Your session ended: log in again.", Data: loginData{Next: "/ui/"}})
			return
		}
		if !sameOrigin(r) || !sameToken(r.PostFormValue("csrf"), s.csrf) {
			c.log.WarnContext(r.Context(), "console action refused: csrf", "path", r.URL.Path, "key", s.who.Key)
			c.fail(w, r, s, &client.Error{Status: http.StatusForbidden, Message: errCSRF.Error()})
			return
		}
		if t := r.PathValue("tenant"); t != "" && !memory.ValidTenant(t) {
			c.fail(w, r, s, &client.Error{Status: http.StatusBadRequest, Message: "tenant must be 1-64 characters of [A-Za-z0-9_-]"})
			return
		}
		f(w, r, s)
	}
}

// fail renders an error page with the API's status and words: a tenant
// key asking for another tenant's page gets the API's 403.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	status := http.StatusBadGateway
	msg := err.Error()
	var ce *client.Error
	if errors.As(err, &ce) {
		status = ce.Status
		if ce.Message != "" {
			msg = ce.Message
		}
	}
	if status >= 500 {
		c.log.WarnContext(r.Context(), "console page failed", "path", r.URL.Path, "error", err)
	}
	w.WriteHeader(status)
	c.pages.render(w, "error.html", c.view(r, s, "Error", "", errorData{Status: status, Text: http.StatusText(status), Message: msg}))
}
