package llm

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
)

// waits records the backoff waits instead of spending them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func TestBackoffWaits(t *testing.T) {
	const base, maxWait = 100 * time.Millisecond, time.Second
	for _, tc := range []struct {
		name   string
		script []llmtest.Reply
		// each wait must lie in [lo, hi]
		lo, hi []time.Duration
	}{
		{"exponential with jitter",
			[]llmtest.Reply{llmtest.Status(500), llmtest.Status(500), llmtest.Status(500), llmtest.Status(500), llmtest.Status(500)},
			[]time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond},
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
		{"capped",
			[]llmtest.Reply{llmtest.Status(502), llmtest.Status(502), llmtest.Status(502), llmtest.Status(502), llmtest.Status(502), llmtest.Status(502)},
			[]time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, maxWait / 2},
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, maxWait}},
		{"retry-after honoured",
			[]llmtest.Reply{llmtest.RateLimited(time.Second), llmtest.Text("ok")},
			[]time.Duration{time.Second}, []time.Duration{time.Second}},
		{"retry-after-ms honoured",
			[]llmtest.Reply{{Status: 429, Header: http.Header{"Retry-After-Ms": {"250"}}, RetryAfter: time.Second}, llmtest.Text("ok")},
			[]time.Duration{250 * time.Millisecond}, []time.Duration{250 * time.Millisecond}},
		{"retry-after capped",
			[]llmtest.Reply{llmtest.RateLimited(time.Hour), llmtest.Text("ok")},
			[]time.Duration{maxWait}, []time.Duration{maxWait}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.Push(tc.script...)
			w := &waits{}
			cfg := Config{URL: s.URL(), Model: "m", MaxRetries: len(tc.script) - 1}
			c, err := New(cfg, nil, nil, WithBackoff(base, maxWait), withSleep(w.sleep))
			if err != nil {
				t.Fatalf("new client: %v", err)
			}
			_, _ = c.Chat(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "x"}}})
			if len(w.d) != len(tc.lo) {
				t.Fatalf("waits %v, want %d of them", w.d, len(tc.lo))
			}
			for i, d := range w.d {
				if d < tc.lo[i] || d > tc.hi[i] {
					t.Fatalf("wait %d is %s, want within [%s, %s]", i, d, tc.lo[i], tc.hi[i])
				}
			}
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"absent", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"120"}, "Retry-After": {"9"}}, 120 * time.Millisecond},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0},
		{"absurd", http.Header{"Retry-After": {"1e300"}}, maxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.header, now); got != tc.want {
				t.Fatalf("retryAfter = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestTenantLimiterEmpties: the per-tenant table holds only tenants with
// calls waiting or in flight, so it cannot grow with the tenant count.
func TestTenantLimiterEmpties(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	c, err := New(Config{URL: s.URL(), Model: "m", TenantConcurrency: 1}, nil, nil)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			tenant := string(rune('a' + i%8))
			if _, err := c.Chat(context.Background(), Request{Tenant: tenant, Messages: []Message{{Role: RoleUser, Content: "x"}}}); err != nil {
				t.Errorf("chat: %v", err)
			}
		})
	}
	wg.Wait()
	if n := c.tenants.size(); n != 0 {
		t.Fatalf("%d tenant entries left after every call ended, want 0", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release, err := c.tenants.acquire(ctx, "x")
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	cancel()
	if _, err := c.tenants.acquire(ctx, "x"); err == nil {
		t.Fatal("acquire with a cancelled context waited for nothing")
	}
	release()
	if n := c.tenants.size(); n != 0 {
		t.Fatalf("%d tenant entries left after a cancelled wait, want 0", n)
	}
}
