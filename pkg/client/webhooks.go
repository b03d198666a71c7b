package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook is a registered endpoint (the server's wire type, kept here so
// receivers need no server package). Secret is set only in the answers of
// CreateWebhook and RotateWebhookSecret.
type Webhook struct {
	ID          string    `json:"id"`
	Tenant      string    `json:"tenant"`
	URL         string    `json:"url"`
	Types       []string  `json:"types"`
	Description string    `json:"description,omitempty"`
	Created     time.Time `json:"created"`
	Secret      string    `json:"secret,omitempty"`
}

// CreateWebhookRequest registers an endpoint; empty Types receives all.
type CreateWebhookRequest struct {
	Tenant      string   `json:"tenant,omitempty"`
	URL         string   `json:"url"`
	Types       []string `json:"types,omitempty"`
	Description string   `json:"description,omitempty"`
}

// CreateWebhook registers an endpoint (POST /v1/webhooks). Keep the
// returned Secret: it is not shown again. Not retried (not idempotent).
func (c *Client) CreateWebhook(ctx context.Context, req CreateWebhookRequest) (Webhook, error) {
	req.Tenant = c.tenantOr(req.Tenant)
	var w Webhook
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/webhooks", body: req, out: &w}); err != nil {
		return Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

// Webhooks lists the tenant's endpoints, without secrets.
func (c *Client) Webhooks(ctx context.Context, tenant string) ([]Webhook, error) {
	var resp struct {
		Webhooks []Webhook `json:"webhooks"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/webhooks", query: tenantQuery(c.tenantOr(tenant)), out: &resp, idempotent: true}); err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return resp.Webhooks, nil
}

// DeleteWebhook removes an endpoint; an unknown id is ErrNotFound.
func (c *Client) DeleteWebhook(ctx context.Context, tenant, id string) error {
	if err := c.do(ctx, call{method: http.MethodDelete, path: "/v1/webhooks/" + url.PathEscape(id), query: tenantQuery(c.tenantOr(tenant)), idempotent: true}); err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// RotateWebhookSecret makes a new secret; the old one keeps signing next
// to it for the server's rotation grace. Not retried: a resend would
// rotate again.
func (c *Client) RotateWebhookSecret(ctx context.Context, tenant, id string) (Webhook, error) {
	var w Webhook
	if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/webhooks/" + url.PathEscape(id) + "/rotate", query: tenantQuery(c.tenantOr(tenant)), out: &w}); err != nil {
		return Webhook{}, fmt.Errorf("rotate webhook %s: %w", id, err)
	}
	return w, nil
}

// ErrWebhookSignature is returned by VerifyWebhook for a delivery that
// does not carry a valid, fresh signature.
var ErrWebhookSignature = errors.New("webhook signature does not verify")

// VerifyWebhook checks a delivery as a receiver should: the
// webhook-signature header holds a v1 HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" made with secret, and the
// timestamp is within tolerance of now (replays are refused; 5 minutes
// is customary). Deduplicate on webhook-id: delivery is at least once.
func VerifyWebhook(secret string, h http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil {
		return fmt.Errorf("%w: missing webhook-id or webhook-timestamp", ErrWebhookSignature)
	}
	if math.Abs(now.Sub(time.Unix(sec, 0)).Seconds()) > tolerance.Seconds() {
		return fmt.Errorf("%w: timestamp outside the tolerance", ErrWebhookSignature)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return fmt.Errorf("decode webhook secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		v, sig, ok := strings.Cut(s, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
