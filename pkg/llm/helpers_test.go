package llm_test

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// eventually bounds polls for what other goroutines do.
const eventually = 10 * time.Second

// recorder is a usage sink that keeps records in memory.
type recorder struct {
	mu  sync.Mutex
	rec []usage.Record
}

func (r *recorder) Record(_ context.Context, rec usage.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec = append(r.rec, rec)
}

func (r *recorder) records() []usage.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.rec)
}

func (r *recorder) outcomes() []string {
	var out []string
	for _, rec := range r.records() {
		out = append(out, rec.Outcome)
	}
	return out
}

// config points at s with no retries to wait for, tiny backoff elsewhere.
func config(s *llmtest.Server) llm.Config {
	return llm.Config{URL: s.URL(), APIKey: "sk-test", Model: "small", MaxRetries: 3}
}

func newClient(t *testing.T, cfg llm.Config, opts ...llm.Option) (*llm.Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	opts = append([]llm.Option{llm.WithBackoff(time.Microsecond, time.Millisecond)}, opts...)
	c, err := llm.New(cfg, rec, nil, opts...)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	return c, rec
}

func host(t *testing.T, s *llmtest.Server) string {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatalf("parse %s: %v", s.URL(), err)
	}
	return u.Host
}

func user(text string) []llm.Message { return []llm.Message{{Role: llm.RoleUser, Content: text}} }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, eventually)
		}
		time.Sleep(time.Millisecond)
	}
}

func models(reqs []llmtest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Model)
	}
	return out
}
