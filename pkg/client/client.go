package client

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Defaults of a new Client.
const (
	DefaultRetries      = 3
	DefaultMaxRetryWait = 30 * time.Second
	DefaultTimeout      = time.Minute
	userAgent           = "recollect-go-client"
)

// Client calls one Recollect server. It is safe for concurrent use; derive
// variants (another key or tenant) with WithOptions.
type Client struct {
	base      string
	http      *http.Client
	apiKey    string
	tenant    string
	namespace string
	retries   int
	maxWait   time.Duration
	userAgent string
	now       func() time.Time
	sleep     func(ctx context.Context, d time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// New returns a client of the server at baseURL (e.g.
// "http://127.0.0.1:7700"); a trailing slash is ignored.
func New(baseURL string, opts ...Option) *Client {
	c := &Client{
		base:      strings.TrimRight(baseURL, "/"),
		http:      &http.Client{Timeout: DefaultTimeout},
		retries:   DefaultRetries,
		maxWait:   DefaultMaxRetryWait,
		userAgent: userAgent,
		now:       time.Now,
		sleep:     sleepCtx,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithOptions returns a copy of c with opts applied; c is unchanged and the
// copy shares its HTTP client.
func (c *Client) WithOptions(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// BaseURL is the server's address as given to New, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// Tenant is the tenant filled into requests that name none ("" = the
// server decides).
func (c *Client) Tenant() string { return c.tenant }

// Namespace is the namespace filled into requests that name none.
func (c *Client) Namespace() string { return c.namespace }

// WithAPIKey sends "Authorization: Bearer <key>" with every request; empty
// sends none.
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = strings.TrimSpace(key) } }

// WithTenant fills requests that name no tenant.
func WithTenant(tenant string) Option { return func(c *Client) { c.tenant = tenant } }

// WithNamespace fills requests that name no namespace.
func WithNamespace(ns string) Option { return func(c *Client) { c.namespace = ns } }

// WithHTTPClient replaces the default HTTP client (one minute timeout).
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) {
		if h != nil {
			c.http = h
		}
	}
}

// WithRetries sets how many times an idempotent call is resent after 429 or
// 503 (default 3; 0 disables retries).
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(0, n) } }

// WithMaxRetryWait caps one wait between attempts (default 30s). A server
// asking for a longer Retry-After gets its error returned instead.
func WithMaxRetryWait(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.maxWait = d
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// tenantOr returns t, else the client's default tenant.
func (c *Client) tenantOr(t string) string {
	if t != "" {
		return t
	}
	return c.tenant
}

// namespaceOr returns ns, else the client's default namespace.
func (c *Client) namespaceOr(ns string) string {
	if ns != "" {
		return ns
	}
	return c.namespace
}
