package openai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// maxRetryAfter caps a server's requested wait, so a misconfigured proxy
// cannot park a fact for an hour; the caller's deadline still applies.
const maxRetryAfter = time.Minute

// backoff doubles twice per retry: 0.5 s, 2 s, 8 s, ... up to max.
type backoff struct{ first, max time.Duration }

var defaultBackoff = backoff{first: 500 * time.Millisecond, max: 30 * time.Second}

// wait is the pause before retry n (from 0): the exponential step with
// "equal jitter", between half of it and all of it, so clients that failed
// together do not retry together.
func (b backoff) wait(n int) time.Duration {
	d := b.first
	for range n {
		if d >= b.max/4 {
			d = b.max
			break
		}
		d *= 4
	}
	d = min(d, b.max)
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// embedBatch sends one batch, retrying transient failures.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	for attempt := 0; ; attempt++ {
		vecs, err := e.attempt(ctx, texts)
		if err == nil {
			return vecs, nil
		}
		var te *transientError
		if !errors.As(err, &te) || attempt >= e.cfg.MaxRetries || ctx.Err() != nil {
			if attempt > 0 {
				return nil, fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return nil, err
		}
		wait := max(e.backoff.wait(attempt), min(te.wait, maxRetryAfter))
		e.log.Warn("retrying embeddings request", "provider", e.provider, "model", e.cfg.Model,
			"attempt", attempt+1, "wait", wait, "err", err)
		if err := e.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("wait to retry after %w: %w", te.err, err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryAfter reads how long the server asks the client to wait: OpenAI's
// retry-after-ms, or Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(s)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
