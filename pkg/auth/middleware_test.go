package auth

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// echo answers with the tenant the request resolves to for ?tenant=.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	t, err := Tenant(r.Context(), r.URL.Query().Get("tenant"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	_, _ = io.WriteString(w, t)
})

func newTestAuth(t *testing.T, cfg Config, c *clock) (*Authenticator, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	a, err := New(cfg, reg, quiet, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return a, reg
}

// rejected reads the registered rejection counter for reason.
func rejected(t *testing.T, reg *prometheus.Registry, reason string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "recollect_auth_requests_rejected_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func do(h http.Handler, method, target, authz string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestMiddleware(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	file := writeFile(t, "keys.yaml", "- sha256: "+hexHash(keyB)+"\n  tenant: globex\n  name: globex-agent\n")
	a, reg := newTestAuth(t, Config{KeysFile: file, Keys: keyA + "=acme," + keyAdmin + "=ops:admin", RateLimit: 100, RateBurst: 100}, c)
	h := a.Middleware(echo)
	tests := []struct {
		name, target, authz string
		code                int
		body                string // substring of the body
		challenge           string // substring of WWW-Authenticate
	}{
		{"healthz is open", "/healthz", "", 200, "default", ""},
		{"readyz is open", "/readyz", "", 200, "default", ""},
		{"metrics is open", "/metrics", "", 200, "default", ""},
		{"the console's pages check their own session", "/ui/memories", "", 200, "default", ""},
		{"the console's root", "/ui", "", 200, "default", ""},
		{"the console's tenants", "/ui/", "", 200, "default", ""},
		{"a console page", "/ui/t/acme/memories/", "", 200, "default", ""},
		{"a path through the console's prefix", "/ui/../v1/stats", "", 401, "missing API key", "Bearer"},
		{"a prefix that only looks like the console's", "/uix/v1/stats", "", 401, "missing API key", "Bearer"},
		{"missing key", "/v1/stats", "", 401, "missing API key", `Bearer realm="recollect"`},
		{"path looking like a probe", "/healthz/../v1/stats", "", 401, "missing API key", "Bearer"},
		{"basic auth", "/v1/stats", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", 401, `must be \"Bearer YOUR_KEY\"`, "Bearer"},
		{"empty bearer", "/v1/stats", "Bearer   ", 401, `must be \"Bearer YOUR_KEY\"`, "Bearer"},
		{"unknown key", "/v1/stats", "Bearer " + keyA + "x", 401, "unknown API key", `error="invalid_token"`},
		{"tenant key", "/v1/stats", "Bearer " + keyA, 200, "acme", ""},
		{"scheme is case-insensitive", "/v1/stats", "bearer " + keyA, 200, "acme", ""},
		{"hashed key from the file", "/v1/stats", "Bearer " + keyB, 200, "globex", ""},
		{"tenant key, own tenant", "/v1/stats?tenant=acme", "Bearer " + keyA, 200, "acme", ""},
		{"tenant key, other tenant", "/v1/stats?tenant=globex", "Bearer " + keyA, 403, `bound to tenant "acme" and may not act for tenant "globex"`, ""},
		{"admin for another tenant", "/v1/stats?tenant=globex", "Bearer " + keyAdmin, 200, "globex", ""},
		{"admin without a tenant", "/v1/stats", "Bearer " + keyAdmin, 200, "ops", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(h, http.MethodGet, tt.target, tt.authz)
			if rec.Code != tt.code || !strings.Contains(rec.Body.String(), tt.body) {
				t.Fatalf("%s: %d %q, want %d with %q", tt.target, rec.Code, rec.Body, tt.code, tt.body)
			}
			if got := rec.Header().Get("WWW-Authenticate"); !strings.Contains(got, tt.challenge) || (tt.challenge == "") != (got == "") {
				t.Fatalf("WWW-Authenticate = %q, want %q", got, tt.challenge)
			}
			if rec.Code == http.StatusUnauthorized {
				var body struct{ Error, Code string }
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Code != "unauthorized" || body.Error == "" {
					t.Fatalf("401 body %q is not the JSON error shape (%v)", rec.Body, err)
				}
			}
		})
	}
	for reason, want := range map[string]float64{"missing_key": 6, "invalid_key": 1, "rate_limited": 0} {
		if got := rejected(t, reg, reason); got != want {
			t.Errorf("rejected{reason=%q} = %v, want %v", reason, got, want)
		}
	}
}

func TestMiddlewareRateLimit(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	file := writeFile(t, "keys.yaml", fmt.Sprintf(`
- key: %s
  tenant: acme
  name: slow
  rate_limit: 0.5
  rate_burst: 2
- key: %s
  tenant: globex
  rate_limit: 0
`, keyA, keyB))
	a, reg := newTestAuth(t, Config{KeysFile: file, Keys: keyAdmin + "=ops:admin", RateLimit: 1, RateBurst: 1}, c)
	h := a.Middleware(echo)
	status := func(key string) *httptest.ResponseRecorder {
		return do(h, http.MethodGet, "/v1/stats", "Bearer "+key)
	}
	// The slow key: a burst of two, then one every two seconds.
	for i := range 2 {
		if rec := status(keyA); rec.Code != 200 {
			t.Fatalf("request %d of the burst: %d", i, rec.Code)
		}
	}
	rec := status(keyA)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "2" || !strings.Contains(rec.Body.String(), `"code":"rate_limited"`) {
		t.Fatalf("over the burst: %d Retry-After=%q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// A refused request takes no token: after 1.5s it still waits 0.5s.
	c.advance(1500 * time.Millisecond)
	if rec := status(keyA); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("after 1.5s: %d Retry-After=%q", rec.Code, rec.Header().Get("Retry-After"))
	}
	c.advance(500 * time.Millisecond)
	if rec := status(keyA); rec.Code != 200 {
		t.Fatalf("after 2s: %d %s", rec.Code, rec.Body)
	}
	// Other keys have their own buckets: the default (1/s, burst 1) for
	// the admin key, none for the unlimited one.
	if rec := status(keyAdmin); rec.Code != 200 {
		t.Fatalf("admin key limited by the slow key's bucket: %d", rec.Code)
	}
	if rec := status(keyAdmin); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("admin key over the default burst of 1: %d", rec.Code)
	}
	for i := range 1000 {
		if rec := status(keyB); rec.Code != 200 {
			t.Fatalf("unlimited key refused at request %d: %d", i, rec.Code)
		}
	}
	if got := rejected(t, reg, "rate_limited"); got != 3 {
		t.Fatalf("rate_limited count = %v, want 3", got)
	}
	// Probes are never limited.
	for range 5 {
		if rec := do(h, http.MethodGet, "/healthz", ""); rec.Code != 200 {
			t.Fatalf("/healthz: %d", rec.Code)
		}
	}
}

func TestMiddlewareDisabled(t *testing.T) {
	c := &clock{t: time.Now()}
	a, _ := newTestAuth(t, Config{RateLimit: 1, RateBurst: 1}, c)
	if a.Enabled() {
		t.Fatal("enabled without keys")
	}
	h := a.Middleware(echo)
	for i := range 3 { // no key, no limit
		if rec := do(h, http.MethodGet, "/v1/stats?tenant=globex", ""); rec.Code != 200 || rec.Body.String() != "globex" {
			t.Fatalf("request %d without keys: %d %q", i, rec.Code, rec.Body)
		}
	}
}

func TestNewRejectsDuplicateKeys(t *testing.T) {
	file := writeFile(t, "keys.yaml", "- sha256: "+hexHash(keyA)+"\n  tenant: globex\n  name: from-file\n")
	_, err := New(Config{KeysFile: file, Keys: keyA + "=acme", RateLimit: 1, RateBurst: 1}, nil, quiet, time.Now)
	if err == nil || !strings.Contains(err.Error(), "api keys from-file and api-keys[0] are the same key") {
		t.Fatalf("error = %v", err)
	}
}

func TestLookupMatchesExactlyOneKey(t *testing.T) {
	var keys []Key
	for i := range 50 {
		keys = append(keys, Key{Name: fmt.Sprint(i), Tenant: fmt.Sprintf("t%d", i), Hash: HashKey(fmt.Sprintf("key-number-%04d-abcdef", i))})
	}
	a, err := NewFromKeys(keys, 0, 1, quiet, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		e, ok := a.lookup(fmt.Sprintf("key-number-%04d-abcdef", i))
		if !ok || e.principal.Tenant != fmt.Sprintf("t%d", i) {
			t.Fatalf("key %d: found=%v principal=%+v", i, ok, e)
		}
	}
	for _, miss := range []string{"", "key-number-0001-abcde", "key-number-0001-abcdefg", "KEY-NUMBER-0001-ABCDEF"} {
		if _, ok := a.lookup(miss); ok {
			t.Fatalf("%q matched a key", miss)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			keys := make([]Key, n)
			for i := range keys {
				keys[i] = Key{Name: fmt.Sprint(i), Tenant: "t", Hash: HashKey(fmt.Sprintf("key-number-%06d-abcdef", i))}
			}
			a, err := NewFromKeys(keys, 0, 1, quiet, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			token := fmt.Sprintf("key-number-%06d-abcdef", n/2)
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := a.lookup(token); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}
