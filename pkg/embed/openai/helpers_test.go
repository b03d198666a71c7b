package openai

import (
	"context"
	"math"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// sink keeps usage records in memory.
type sink struct {
	mu      sync.Mutex
	records []usage.Record
}

func (s *sink) Record(_ context.Context, r usage.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, r)
}
func (s *sink) Flush(context.Context) error { return nil }
func (s *sink) Dropped() int64              { return 0 }
func (s *sink) Close() error                { return nil }

func (s *sink) Records() []usage.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.records)
}

// fixture is an Embedder against a scripted server whose retry waits are
// recorded instead of slept.
type fixture struct {
	srv   *llmtest.Server
	e     *Embedder
	sink  *sink
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fixture) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.waits)
}

func testConfig(srvURL string) Config {
	return Config{URL: srvURL, APIKey: "sk-test-secret", Model: "test-embed", BatchSize: DefaultBatchSize, Timeout: 10 * time.Second, MaxRetries: DefaultMaxRetries}
}

func newFixture(t *testing.T, modify func(*Config), srvOpts ...llmtest.Option) *fixture {
	t.Helper()
	srv := llmtest.New(t, srvOpts...)
	cfg := testConfig(srv.URL())
	if modify != nil {
		modify(&cfg)
	}
	f := &fixture{srv: srv, sink: &sink{}}
	e, err := New(cfg, f.sink, "embedder")
	if err != nil {
		t.Fatalf("new embedder: %v", err)
	}
	e.sleep = func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		f.waits = append(f.waits, d)
		f.mu.Unlock()
		return ctx.Err()
	}
	f.e = e
	return f
}

func host(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
