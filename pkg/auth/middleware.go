package auth

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/web"
)

// openPaths answer without a key: probes and scrapers carry none, and the
// API description is public.
var openPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/openapi.json": true, "/": true, "/ui": true}

// ConsolePrefix is the operator console's path prefix (package console):
// a browser sends no bearer key, so its pages pass the middleware and the
// console checks its own session cookie, then calls the API on loopback
// with the key the person logged in with.
const ConsolePrefix = "/ui/"

// open reports whether a path passes without a key; the console prefix is
// matched on the cleaned path, so /ui/../v1/stats does not pass.
func open(p string) bool {
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return openPaths[p] || clean == p && strings.HasPrefix(clean+"/", ConsolePrefix)
}

// realm is sent in every WWW-Authenticate challenge.
const realm = `Bearer realm="recollect"`

// Middleware authenticates every request but the health, readiness and
// metrics probes, the API description and the console's pages (which
// check their own session): 401 without a known bearer key, 429 over the key's rate.
// The request's context carries the key's Principal. Without keys it
// returns next unchanged.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	if !a.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if open(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		header := r.Header.Get("Authorization")
		token, ok := bearer(header)
		if !ok {
			msg := `missing API key: send it in the header "Authorization: Bearer YOUR_KEY"`
			if header != "" {
				msg = `the Authorization header must be "Bearer YOUR_KEY"`
			}
			a.refuse(w, r, "missing_key", realm, errors.New(msg))
			return
		}
		e, ok := a.lookup(token)
		if !ok {
			a.refuse(w, r, "invalid_key", realm+`, error="invalid_token"`, errors.New("unknown API key"))
			return
		}
		if ok, wait := e.allow(a.now()); !ok {
			a.rejected.WithLabelValues("rate_limited").Inc()
			secs := max(1, int(math.Ceil(wait.Seconds())))
			a.log.DebugContext(r.Context(), "api key over its rate", "key", e.principal.Name, "tenant", e.principal.Tenant)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			web.WriteError(w, http.StatusTooManyRequests, "rate_limited",
				fmt.Errorf("api key %q is over its rate limit of %g requests per second: retry after %s", e.principal.Name, float64(e.limiter.Limit()), time.Duration(secs)*time.Second))
			return
		}
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), e.principal)))
	})
}

func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, reason, challenge string, err error) {
	a.rejected.WithLabelValues(reason).Inc()
	a.log.DebugContext(r.Context(), "api request refused", "reason", reason, "path", r.URL.Path, "remote", r.RemoteAddr)
	w.Header().Set("WWW-Authenticate", challenge)
	web.WriteError(w, http.StatusUnauthorized, "unauthorized", err)
}

// bearer extracts the token of "Authorization: Bearer <token>" (the scheme
// is case-insensitive, RFC 9110).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
