package llm_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/usage"
)

const (
	ok  = usage.OutcomeOK
	bad = usage.OutcomeError
)

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxRetries int
		script     []llmtest.Reply
		wantErr    bool
		wantStatus int // of the HTTPError in the failure, 0: none
		wantUsage  []string
	}{
		{"rate limited then ok", 3, []llmtest.Reply{llmtest.RateLimited(time.Millisecond), llmtest.Text("ok")}, false, 0, []string{bad, ok}},
		{"server errors then ok", 3, []llmtest.Reply{llmtest.Status(500), llmtest.Status(502), llmtest.Status(503), llmtest.Text("ok")}, false, 0, []string{bad, bad, bad, ok}},
		{"408 and 409 are transient", 3, []llmtest.Reply{llmtest.Status(408), llmtest.Status(409), llmtest.Text("ok")}, false, 0, []string{bad, bad, ok}},
		{"malformed answer then ok", 3, []llmtest.Reply{{Raw: `{"choices":[{"message":{"content":"tru`}, {Raw: `{"choices":[]}`}, llmtest.Text("ok")}, false, 0, []string{bad, bad, ok}},
		{"html from a proxy", 1, []llmtest.Reply{{Raw: "<html>bad gateway</html>"}, llmtest.Text("ok")}, false, 0, []string{bad, ok}},
		{"retries exhausted", 2, []llmtest.Reply{llmtest.Status(500), llmtest.Status(500), llmtest.Status(503)}, true, 503, []string{bad, bad, bad}},
		{"no retries", 0, []llmtest.Reply{llmtest.Status(429)}, true, 429, []string{bad}},
		{"400 is not retried", 3, []llmtest.Reply{{Status: 400, Error: "context length exceeded"}}, true, 400, []string{bad}},
		{"422 is not retried", 3, []llmtest.Reply{llmtest.Status(422)}, true, 422, []string{bad}},
		{"401 is not retried", 3, []llmtest.Reply{llmtest.Status(401)}, true, 401, []string{bad}},
		{"403 is not retried", 3, []llmtest.Reply{llmtest.Status(403)}, true, 403, []string{bad}},
		{"404 is not retried", 3, []llmtest.Reply{{Status: 404, Error: "model not found"}}, true, 404, []string{bad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.Push(tc.script...)
			cfg := config(s)
			cfg.MaxRetries = tc.maxRetries
			c, rec := newClient(t, cfg)
			resp, err := c.Chat(context.Background(), llm.Request{Tenant: "acme", Messages: user("x")})
			if got := rec.outcomes(); !slices.Equal(got, tc.wantUsage) {
				t.Fatalf("usage outcomes %v, want %v", got, tc.wantUsage)
			}
			if n := len(s.Requests()); n != len(tc.wantUsage) {
				t.Fatalf("%d requests, want %d", n, len(tc.wantUsage))
			}
			if !tc.wantErr {
				if err != nil || resp.Content != "ok" || resp.Attempts != len(tc.wantUsage) {
					t.Fatalf("chat = %+v, %v; want ok after %d attempts", resp, err, len(tc.wantUsage))
				}
				return
			}
			var he *llm.HTTPError
			if !errors.As(err, &he) || he.Status != tc.wantStatus {
				t.Fatalf("chat = %v, want an HTTPError %d", err, tc.wantStatus)
			}
			// Only the request's own fault is not "unavailable".
			callerFault := tc.wantStatus == 400 || tc.wantStatus == 422
			if errors.Is(err, llm.ErrUnavailable) == callerFault {
				t.Fatalf("chat = %v: ErrUnavailable %v, want %v", err, !callerFault, callerFault)
			}
			if he.Provider != host(t, s) || he.Model != "small" || he.Message == "" {
				t.Fatalf("HTTPError %+v lacks provider, model or message", he)
			}
		})
	}
}

func TestFallback(t *testing.T) {
	t.Run("after the primary is exhausted", func(t *testing.T) {
		primary, backup := llmtest.New(t), llmtest.New(t, llmtest.WithAPIKey("sk-backup"))
		primary.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Status(503) })
		backup.Push(llmtest.Reply{Content: "from backup", InputTokens: 7, OutputTokens: 2})
		cfg := config(primary)
		cfg.MaxRetries = 2
		cfg.FallbackURLs = []string{backup.URL()}
		cfg.FallbackModels = []string{"large"}
		cfg.FallbackAPIKeys = []string{"sk-backup"}
		c, rec := newClient(t, cfg)
		resp, err := c.Chat(context.Background(), llm.Request{Messages: user("x")})
		if err != nil {
			t.Fatalf("chat: %v", err)
		}
		if resp.Content != "from backup" || resp.Provider != host(t, backup) || resp.Model != "large" || resp.Attempts != 4 {
			t.Fatalf("response %+v, want the backup's answer after 4 attempts", resp)
		}
		if n := len(primary.Requests()); n != 3 {
			t.Fatalf("primary got %d requests, want 3 (1 + 2 retries)", n)
		}
		got := rec.records()
		if len(got) != 4 || got[3].Provider != host(t, backup) || got[3].Model != "large" || got[3].InputTokens != 7 ||
			got[0].Provider != host(t, primary) || got[0].Outcome != bad {
			t.Fatalf("usage %+v", got)
		}
	})

	t.Run("the primary key stays with the primary", func(t *testing.T) {
		primary, backup := llmtest.New(t), llmtest.New(t)
		primary.Push(llmtest.Status(500))
		backup.Push(llmtest.Text("ok"))
		cfg := config(primary)
		cfg.MaxRetries = 0
		cfg.FallbackURLs = []string{backup.URL()}
		c, _ := newClient(t, cfg)
		if _, err := c.Chat(context.Background(), llm.Request{Tier: llm.TierGate, Messages: user("x")}); err != nil {
			t.Fatalf("chat: %v", err)
		}
		r := backup.Requests()[0]
		if r.APIKey != "" || r.Model != "small" {
			t.Fatalf("backup got key %q model %q, want no key and the tier's model", r.APIKey, r.Model)
		}
	})

	t.Run("same url, bigger model, same key", func(t *testing.T) {
		s := llmtest.New(t, llmtest.WithAPIKey("sk-test"))
		s.Handle(func(r llmtest.Request) llmtest.Reply {
			if r.Model == "small" {
				return llmtest.Status(429)
			}
			return llmtest.Text("big answer")
		})
		cfg := config(s)
		cfg.MaxRetries = 1
		cfg.FallbackModels = []string{"big"}
		c, _ := newClient(t, cfg)
		resp, err := c.Chat(context.Background(), llm.Request{Messages: user("x")})
		if err != nil || resp.Content != "big answer" {
			t.Fatalf("chat = %+v, %v", resp, err)
		}
		if got := models(s.Requests()); !slices.Equal(got, []string{"small", "small", "big"}) {
			t.Fatalf("models tried %v", got)
		}
	})

	t.Run("401 skips to the next provider at once", func(t *testing.T) {
		primary, backup := llmtest.New(t, llmtest.WithAPIKey("other")), llmtest.New(t)
		backup.Push(llmtest.Text("ok"))
		cfg := config(primary)
		cfg.FallbackURLs = []string{backup.URL()}
		c, _ := newClient(t, cfg)
		if _, err := c.Chat(context.Background(), llm.Request{Messages: user("x")}); err != nil {
			t.Fatalf("chat: %v", err)
		}
		if n := len(primary.Requests()); n != 1 {
			t.Fatalf("primary got %d requests, want 1", n)
		}
	})

	t.Run("400 is not sent to the fallback", func(t *testing.T) {
		primary, backup := llmtest.New(t), llmtest.New(t)
		primary.Push(llmtest.Status(400))
		cfg := config(primary)
		cfg.FallbackURLs = []string{backup.URL()}
		c, _ := newClient(t, cfg)
		var he *llm.HTTPError
		if _, err := c.Chat(context.Background(), llm.Request{Messages: user("x")}); !errors.As(err, &he) || he.Status != 400 {
			t.Fatalf("chat = %v, want HTTPError 400", err)
		}
		if n := len(backup.Requests()); n != 0 {
			t.Fatalf("backup got %d requests, want 0", n)
		}
	})

	t.Run("all exhausted", func(t *testing.T) {
		primary, backup := llmtest.New(t), llmtest.New(t)
		primary.Push(llmtest.Status(500), llmtest.Status(500))
		backup.Push(llmtest.Status(401))
		cfg := config(primary)
		cfg.MaxRetries = 1
		cfg.FallbackURLs = []string{backup.URL()}
		c, rec := newClient(t, cfg)
		_, err := c.Chat(context.Background(), llm.Request{Messages: user("x")})
		if !errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("chat = %v, want ErrUnavailable", err)
		}
		if got := rec.outcomes(); !slices.Equal(got, []string{bad, bad, bad}) {
			t.Fatalf("usage outcomes %v", got)
		}
	})
}

func TestTimeout(t *testing.T) {
	s := llmtest.New(t)
	never := llmtest.Reply{Content: "too late", Delay: time.Minute}
	s.Push(never, never)
	cfg := config(s)
	cfg.Timeout = 20 * time.Millisecond
	cfg.MaxRetries = 1
	c, rec := newClient(t, cfg)
	_, err := c.Chat(context.Background(), llm.Request{Messages: user("x")})
	if !errors.Is(err, llm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("chat = %v, want ErrUnavailable from a deadline", err)
	}
	if got := rec.outcomes(); !slices.Equal(got, []string{bad, bad}) {
		t.Fatalf("usage outcomes %v, want two failed attempts", got)
	}
}

func TestCallerCancels(t *testing.T) {
	s := llmtest.New(t)
	release := s.Hold()
	defer release()
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	cfg := config(s)
	c, _ := newClient(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, llm.Request{Messages: user("x")})
		errc <- err
	}()
	waitFor(t, "request in flight", func() bool { return s.InFlight() == 1 })
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("chat = %v, want context.Canceled and not ErrUnavailable", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1: a cancelled call must not retry", n)
	}
}

func TestTenantConcurrency(t *testing.T) {
	const bound, calls = 2, 6
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	release := s.Hold()
	defer release()
	cfg := config(s)
	cfg.TenantConcurrency = bound
	c, _ := newClient(t, cfg)

	errc := make(chan error, calls+1)
	chat := func(tenant string) {
		_, err := c.Chat(context.Background(), llm.Request{Tenant: tenant, Messages: user(tenant)})
		errc <- err
	}
	for range calls {
		go chat("busy")
	}
	waitFor(t, "the busy tenant's slots taken", func() bool { return s.InFlight() >= bound })
	// Another tenant is not queued behind the busy one.
	go chat("quiet")
	waitFor(t, "the quiet tenant's call in flight", func() bool { return s.InFlight() >= bound+1 })
	release()
	for range calls + 1 {
		if err := <-errc; err != nil {
			t.Fatalf("chat: %v", err)
		}
	}
	if got := s.MaxInFlight(); got != bound+1 {
		t.Fatalf("at most %d requests in flight, want %d (%d busy + 1 quiet)", got, bound+1, bound)
	}
	if n := len(s.Requests()); n != calls+1 {
		t.Fatalf("%d requests, want %d", n, calls+1)
	}
}

func TestTenantWaitCancelled(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	release := s.Hold()
	defer release()
	cfg := config(s)
	cfg.TenantConcurrency = 1
	c, _ := newClient(t, cfg)
	go func() { _, _ = c.Chat(context.Background(), llm.Request{Tenant: "t", Messages: user("x")}) }()
	waitFor(t, "first call in flight", func() bool { return s.InFlight() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.Chat(ctx, llm.Request{Tenant: "t", Messages: user("x")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("chat waiting for a slot = %v, want deadline exceeded", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}
