package llm

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Option tunes a Client beyond its Config.
type Option func(*Client)

// WithHTTPClient sets the HTTP client; its own Timeout should be zero or
// above Config.Timeout, which bounds each attempt.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithBackoff sets the first retry wait (doubling per retry, jittered) and
// the cap on every wait, Retry-After included. Tests use tiny values.
func WithBackoff(base, maxWait time.Duration) Option {
	return func(c *Client) {
		if base > 0 && maxWait >= base {
			c.backoffBase, c.backoffMax = base, maxWait
		}
	}
}

// WithClock sets the clock that stamps usage records and measures calls.
func WithClock(now func() time.Time) Option {
	return func(c *Client) {
		if now != nil {
			c.now = now
		}
	}
}

// WithTracerProvider sets where spans go; default: the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *Client) {
		if tp != nil {
			c.tracer = tp.Tracer(tracerName)
		}
	}
}

// withSleep replaces the backoff wait, so tests can see the waits without
// spending them.
func withSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}
