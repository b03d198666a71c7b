package client

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

const (
	acmeKey   = "acme-key-0123456789abcdef"
	globexKey = "globex-key-0123456789abcdef"
	slowKey   = "slow-key-0123456789abcdef"  // one request per 100 s: Retry-After 100
	fastKey   = "fast-key-0123456789abcdef"  // one request per second: Retry-After 1
	adminKey  = "admin-key-0123456789abcdef" // any tenant
)

// startWithKeys runs the app with API keys (rate limits per key).
func startWithKeys(t *testing.T) *app.App {
	t.Helper()
	file := filepath.Join(t.TempDir(), "keys.yaml")
	keys := `
- {key: ` + acmeKey + `, tenant: acme, rate_limit: 0}
- {key: ` + globexKey + `, tenant: globex, rate_limit: 0}
- {key: ` + slowKey + `, tenant: slow, rate_limit: 0.01, rate_burst: 1}
- {key: ` + fastKey + `, tenant: fast, rate_limit: 1, rate_burst: 1}
- {key: ` + adminKey + `, scopes: [admin], rate_limit: 0}
`
	if err := os.WriteFile(file, []byte(keys), 0o600); err != nil {
		t.Fatal(err)
	}
	return clienttest.Start(t, func(cfg *app.Config) { cfg.Auth.KeysFile = file })
}

// sleeps records the waits between attempts, and waits them.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return sleepCtx(ctx, d)
}

func (s *sleeps) take() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.waits
	s.waits = nil
	return w
}

func TestAPIKeys(t *testing.T) {
	a := startWithKeys(t)
	ctx := context.Background()
	base := a.Web().URL()

	t.Run("missing and unknown keys", func(t *testing.T) {
		for name, c := range map[string]*Client{"none": New(base), "unknown": New(base, WithAPIKey("not-a-key-0123456789abcdef"))} {
			_, err := c.Stats(ctx, "")
			var apiErr *Error
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || apiErr.Code != "unauthorized" || !errors.Is(err, ErrUnauthorized) {
				t.Fatalf("%s: %v, want 401 unauthorized", name, err)
			}
		}
	})

	t.Run("a key acts for its tenant", func(t *testing.T) {
		acme := New(base, WithAPIKey(acmeKey))
		resp, err := acme.Learn(ctx, query.LearnRequest{MemoryInput: memory.MemoryInput{Content: "The acme build server is ci.acme.internal"}})
		if err != nil {
			t.Fatal(err)
		}
		clienttest.Eventually(t, time.Minute, "learned memory stored", func() error {
			_, err := acme.GetMemory(ctx, "", resp.MemoryID)
			return err
		})
		st, err := acme.Stats(ctx, "")
		if err != nil || st.Tenant != "acme" || st.Memories != 1 {
			t.Fatalf("acme stats %+v (%v)", st, err)
		}
		globex := New(base, WithAPIKey(globexKey))
		if r, err := globex.Recall(ctx, RecallRequest{Query: "build server"}); err != nil || len(r.Memories) != 0 {
			t.Fatalf("globex recalled %d memories (%v)", len(r.Memories), err)
		}
		_, err = globex.Stats(ctx, "acme")
		var apiErr *Error
		if !errors.Is(err, ErrUnauthorized) || !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden {
			t.Fatalf("globex naming acme: %v, want 403", err)
		}
		// WithOptions derives a client with another key; the original keeps its own.
		admin := globex.WithOptions(WithAPIKey(adminKey), WithTenant("acme"))
		if st, err := admin.Stats(ctx, ""); err != nil || st.Memories != 1 {
			t.Fatalf("admin key for acme: %+v (%v)", st, err)
		}
		if _, err := globex.Stats(ctx, "acme"); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("derived client changed its parent: %v", err)
		}
	})

	t.Run("429 is retried after Retry-After for idempotent calls", func(t *testing.T) {
		var rec sleeps
		c := New(base, WithAPIKey(fastKey))
		c.sleep = rec.sleep
		for i := range 2 {
			if _, err := c.Stats(ctx, ""); err != nil {
				t.Fatalf("stats %d: %v", i, err)
			}
		}
		if w := rec.take(); len(w) == 0 || w[0] != time.Second {
			t.Fatalf("waits %v, want the first to be Retry-After's 1s", w)
		}
	})

	t.Run("429 is returned when waiting cannot help", func(t *testing.T) {
		var rec sleeps
		c := New(base, WithAPIKey(slowKey))
		c.sleep = rec.sleep
		if _, err := c.Stats(ctx, ""); err != nil {
			t.Fatal(err)
		}
		check := func(what string, err error) {
			t.Helper()
			var apiErr *Error
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusTooManyRequests || apiErr.Code != "rate_limited" ||
				apiErr.RetryAfter < 50*time.Second || !errors.Is(err, ErrUnavailable) {
				t.Fatalf("%s: %v, want 429 with Retry-After", what, err)
			}
			if w := rec.take(); len(w) != 0 {
				t.Fatalf("%s: waited %v", what, w)
			}
		}
		_, err := c.Stats(ctx, "")
		check("Retry-After above the cap", err)
		deadline, cancel := context.WithTimeout(ctx, 40*time.Second)
		defer cancel()
		_, err = c.WithOptions(WithMaxRetryWait(time.Hour)).Stats(deadline, "")
		check("Retry-After past the deadline", err)
		_, err = c.WithOptions(WithMaxRetryWait(time.Hour)).Consolidate(ctx, query.ConsolidateRequest{})
		check("consolidate is not idempotent", err)
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := New("http://x")
	c.now = func() time.Time { return now }
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"-4", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := c.retryAfter(tc.in); got != tc.want {
				t.Fatalf("retryAfter(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
