package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/usage"
)

func TestEmbedRetries(t *testing.T) {
	ok := llmtest.Reply{}
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		requests  int
		wantErr   bool
		status    int           // of the final error, 0 for none or not a StatusError
		minWait   time.Duration // the server's requested wait, when any
		malformed bool
	}{
		{name: "500 then ok", replies: []llmtest.Reply{llmtest.Status(500), ok}, requests: 2},
		{name: "503 502 then ok", replies: []llmtest.Reply{llmtest.Status(503), llmtest.Status(502), ok}, requests: 3},
		{name: "429 with Retry-After", replies: []llmtest.Reply{llmtest.RateLimited(7 * time.Second), ok}, requests: 2, minWait: 7 * time.Second},
		{name: "429 with retry-after-ms", replies: []llmtest.Reply{{Status: 429, Header: http.Header{"Retry-After-Ms": {"1500"}}}, ok}, requests: 2, minWait: 1500 * time.Millisecond},
		{name: "408", replies: []llmtest.Reply{llmtest.Status(408), ok}, requests: 2},
		{name: "truncated body", replies: []llmtest.Reply{{Raw: `{"data":[{"index":0,"embed`}, ok}, requests: 2},
		{name: "html from a proxy", replies: []llmtest.Reply{{Raw: `<html>bad gateway</html>`}, ok}, requests: 2},
		{name: "400 is final", replies: []llmtest.Reply{llmtest.Status(400)}, requests: 1, wantErr: true, status: 400},
		{name: "401 is final", replies: []llmtest.Reply{llmtest.Status(401)}, requests: 1, wantErr: true, status: 401},
		{name: "403 is final", replies: []llmtest.Reply{llmtest.Status(403)}, requests: 1, wantErr: true, status: 403},
		{name: "404 is final", replies: []llmtest.Reply{llmtest.Status(404)}, requests: 1, wantErr: true, status: 404},
		{name: "retries run out", replies: []llmtest.Reply{llmtest.Status(500), llmtest.Status(500), llmtest.Status(500), llmtest.Status(500)}, requests: 4, wantErr: true, status: 500},
		{name: "wrong count is final", replies: []llmtest.Reply{{Embeddings: [][]float32{{1, 0}}}}, requests: 1, wantErr: true, malformed: true},
		{name: "repeated index is final", replies: []llmtest.Reply{{Raw: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`}}, requests: 1, wantErr: true, malformed: true},
		{name: "zero vector is final", replies: []llmtest.Reply{{Raw: `{"data":[{"index":0,"embedding":[0,0]},{"index":1,"embedding":[1,0]}]}`}}, requests: 1, wantErr: true, malformed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.srv.PushEmbedding(tc.replies...)
			_, err := f.e.Embed(context.Background(), []string{"one", "two"})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if n := len(f.srv.Requests()); n != tc.requests {
				t.Fatalf("%d requests, want %d", n, tc.requests)
			}
			var serr *StatusError
			if got := errors.As(err, &serr); got != (tc.status != 0) || (got && serr.Code != tc.status) {
				t.Fatalf("err = %v, want status %d", err, tc.status)
			}
			if errors.Is(err, ErrMalformed) != tc.malformed {
				t.Fatalf("err = %v, want malformed %v", err, tc.malformed)
			}
			waits := f.Waits()
			if len(waits) != tc.requests-1 {
				t.Fatalf("%d waits for %d requests", len(waits), tc.requests)
			}
			for i, w := range waits {
				lo, hi := defaultBackoff.bounds(i)
				if tc.minWait > 0 {
					lo, hi = tc.minWait, tc.minWait
				}
				if w < lo || w > hi {
					t.Errorf("wait %d = %v, want within [%v, %v]", i, w, lo, hi)
				}
			}
			recs := f.sink.Records()
			if len(recs) != tc.requests {
				t.Fatalf("%d usage records for %d requests", len(recs), tc.requests)
			}
			for i, r := range recs {
				want := usage.OutcomeError
				if i == len(recs)-1 && !tc.wantErr {
					want = usage.OutcomeOK
				}
				if r.Outcome != want {
					t.Errorf("record %d outcome %q, want %q", i, r.Outcome, want)
				}
			}
		})
	}
}

// bounds is the range backoff.wait(n) draws from.
func (b backoff) bounds(n int) (lo, hi time.Duration) {
	d := b.first
	for range n {
		d = min(d*4, b.max)
	}
	return d / 2, d
}

func TestBackoffWait(t *testing.T) {
	b := backoff{first: 500 * time.Millisecond, max: 30 * time.Second}
	steps := []time.Duration{500 * time.Millisecond, 2 * time.Second, 8 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	for n, d := range steps {
		lo, hi := b.bounds(n)
		if hi != d {
			t.Fatalf("step %d: %v, want %v", n, hi, d)
		}
		seen := map[time.Duration]bool{}
		for range 50 {
			w := b.wait(n)
			if w < lo || w > hi {
				t.Fatalf("wait(%d) = %v, want within [%v, %v]", n, w, lo, hi)
			}
			seen[w] = true
		}
		if len(seen) < 2 {
			t.Fatalf("wait(%d) has no jitter", n)
		}
	}
	if w := b.wait(1000); w > b.max {
		t.Fatalf("wait(1000) = %v beyond max", w)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"12"}}, 12 * time.Second},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"milliseconds first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.header, now); got != tc.want {
				t.Fatalf("retryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEmbedRetryAfterIsCapped(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.PushEmbedding(llmtest.RateLimited(time.Hour), llmtest.Reply{})
	if _, err := f.e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if w := f.Waits(); len(w) != 1 || w[0] != maxRetryAfter {
		t.Fatalf("waits %v, want [%v]", w, maxRetryAfter)
	}
}

func TestEmbedAttemptTimeoutIsRetried(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	f.srv.PushEmbedding(llmtest.Reply{Delay: time.Hour}, llmtest.Reply{})
	got, err := f.e.Embed(context.Background(), []string{"slow"})
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if len(got) != 1 || len(f.srv.Requests()) != 2 {
		t.Fatalf("%d vectors after %d requests", len(got), len(f.srv.Requests()))
	}
	if recs := f.sink.Records(); len(recs) != 2 || recs[0].Outcome != usage.OutcomeError || recs[1].Outcome != usage.OutcomeOK {
		t.Fatalf("usage %+v", recs)
	}
}

func TestEmbedCancelledDuringBackoff(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Status(503) })
	e, err := New(testConfig(srv.URL()), nil, "embedder", WithBackoff(time.Hour, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Embed(ctx, []string{"x"})
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("embed still waiting to retry after its context was cancelled")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// TestEmbedRetriesDroppedConnection uses its own server: the first
// connection is cut without an answer.
func TestEmbedRetriesDroppedConnection(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		var req request
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"index":0,"embedding":[1,1]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
	}))
	t.Cleanup(srv.Close)
	s := &sink{}
	e, err := New(testConfig(srv.URL+"/v1"), s, "embedder", WithBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Embed(context.Background(), []string{"x"})
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if calls.Load() != 2 || !near(got[0], []float32{float32(math.Sqrt2) / 2, float32(math.Sqrt2) / 2}) {
		t.Fatalf("%d calls, vector %v", calls.Load(), got[0])
	}
	if recs := s.Records(); len(recs) != 2 || recs[0].Outcome != usage.OutcomeError {
		t.Fatalf("usage %+v", recs)
	}
}
