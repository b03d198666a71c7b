package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/recollect-dev/recollect/pkg/client"
)

type loginData struct {
	Next  string
	Token string // the login form's CSRF token
	Open  bool   // the server has no API keys: any key (or none) logs in
}

// loginPage shows the form and sets its CSRF cookie (the session's token
// does not exist yet: login is protected by a double-submitted token).
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	headers(w)
	if _, ok := c.session(r); ok {
		http.Redirect(w, r, localNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.renderLogin(w, r, http.StatusOK, "")
}

func (c *Console) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	token := randomToken()
	setCookie(w, r, loginCookie, token, 600)
	d := loginData{Next: localNext(r.FormValue("next")), Token: token}
	// Without keys the API answers anyone: say so rather than ask for one.
	if who, err := client.New(c.base, client.WithHTTPClient(c.hc), client.WithRetries(0)).WhoAmI(r.Context()); err == nil && !who.Auth {
		d.Open = true
	}
	w.WriteHeader(status)
	c.pages.render(w, "login.html", view{Title: "Log in", Error: msg, Data: d})
}

// login checks the key against the API itself (GET /v1/whoami) and starts
// a session for it.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	headers(w)
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	ck, err := r.Cookie(loginCookie)
	if err != nil || !sameOrigin(r) || !sameToken(r.PostFormValue("token"), ck.Value) {
		c.renderLogin(w, r, http.StatusForbidden, "The login form expired or came from another site: try again.")
		return
	}
	key := strings.TrimSpace(r.PostFormValue("key"))
	who, err := client.New(c.base, client.WithAPIKey(key), client.WithHTTPClient(c.hc), client.WithRetries(0)).WhoAmI(r.Context())
	if err != nil {
		status, msg := http.StatusBadGateway, "The API did not answer: "+err.Error()
		if errors.Is(err, client.ErrUnauthorized) {
			status, msg = http.StatusUnauthorized, "That API key is not known to this server."
		}
		c.log.InfoContext(r.Context(), "console login refused", "remote", r.RemoteAddr, "error", err)
		c.renderLogin(w, r, status, msg)
		return
	}
	s := c.sessions.create(key, who)
	setCookie(w, r, loginCookie, "", -1)
	setCookie(w, r, sessionCookie, s.id, 0)
	c.log.InfoContext(r.Context(), "console login", "key", who.Key, "tenant", who.Tenant, "admin", who.Admin)
	next := localNext(r.PostFormValue("next"))
	if next == "/ui/" && !who.Admin && who.Tenant != "" {
		next = tenantURL(who.Tenant, "memories")
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, s *session) {
	c.sessions.remove(s.id)
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}
