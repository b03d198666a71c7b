package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backoff defaults: 1s, 2s, 4s... with jitter, never above 30s; a
// Retry-After longer than the cap is cut to it.
const (
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = 30 * time.Second
)

// maxRetryAfter bounds a parsed Retry-After before it becomes a Duration,
// so an absurd value cannot overflow.
const maxRetryAfter = 24 * time.Hour

// backoff is the wait before retry n (from 0): exponential with equal
// jitter, so retries of many callers spread out; or the server's
// Retry-After when it gave one; both capped.
func (c *Client) backoff(n int, err error) time.Duration {
	var he *HTTPError
	if errors.As(err, &he) && he.RetryAfter > 0 {
		return min(he.RetryAfter, c.backoffMax)
	}
	d := c.backoffBase
	for range n {
		d *= 2
		if d >= c.backoffMax {
			d = c.backoffMax
			break
		}
	}
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads OpenAI's retry-after-ms, then Retry-After as seconds or
// an HTTP date; 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, maxRetryAfter.Seconds()*1000) * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
