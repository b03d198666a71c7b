package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
)

// Cookie names. The session cookie holds a random id only: the API key it
// stands for stays in this process.
const (
	sessionCookie = "recollect_session"
	loginCookie   = "recollect_login" // the login form's CSRF token (double submit)
	cookiePath    = "/ui"
)

// session is one logged-in person: the key they gave, who the API says it
// is, and the CSRF token every action of theirs must carry.
type session struct {
	id      string
	key     string
	who     api.WhoAmI
	csrf    string
	expires time.Time
}

// sessions is the in-memory session table. Sessions end at logout, after
// ttl without a request, or when the table is full and they are the
// oldest; a restart logs everyone out.
type sessions struct {
	mu  sync.Mutex
	m   map[string]*session
	ttl time.Duration
	max int
	now func() time.Time
}

func newSessions(ttl time.Duration, max int, now func() time.Time) *sessions {
	return &sessions{m: map[string]*session{}, ttl: ttl, max: max, now: now}
}

// randomToken is 32 random bytes, URL-safe.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *sessions) create(key string, who api.WhoAmI) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, old := range s.m {
		if now.After(old.expires) {
			delete(s.m, id)
		}
	}
	if len(s.m) >= s.max {
		var oldest *session
		for _, old := range s.m {
			if oldest == nil || old.expires.Before(oldest.expires) {
				oldest = old
			}
		}
		delete(s.m, oldest.id)
	}
	ss := &session{id: randomToken(), key: key, who: who, csrf: randomToken(), expires: now.Add(s.ttl)}
	s.m[ss.id] = ss
	return ss
}

// get returns the live session of id and extends it.
func (s *sessions) get(id string) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[id]
	if !ok {
		return nil, false
	}
	now := s.now()
	if now.After(ss.expires) {
		delete(s.m, id)
		return nil, false
	}
	ss.expires = now.Add(s.ttl)
	cp := *ss
	return &cp, true
}

func (s *sessions) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// secure reports whether the browser reached us over TLS, directly or
// through a proxy that says so: the cookies are then Secure.
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: cookiePath, MaxAge: maxAge,
		HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode})
}

// sameToken compares tokens in constant time; empty never matches.
func sameToken(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// sameOrigin refuses a POST whose Origin (sent by every current browser
// on a POST) names another site: a second wall behind the CSRF token.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	fwd := r.Header.Get("X-Forwarded-Host")
	return u.Host == r.Host || fwd != "" && u.Host == fwd
}
