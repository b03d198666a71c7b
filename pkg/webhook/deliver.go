package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// Delivery headers (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// newHTTPClient is the senders' client: bounded in time, never following
// redirects (a redirect could lead to an address the guard refuses, and
// the endpoint's URL is what the tenant registered), and refusing
// non-public addresses at connect time unless allowed.
func newHTTPClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: dialControl(cfg.AllowPrivate)}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would hide the address the guard checks
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// attemptError is a failed attempt, classed for the metric.
type attemptError struct {
	class string // network, timeout, status, refused
	err   error
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// post sends one signed event to one endpoint; nil means a 2xx.
func (s *Sender) post(ctx context.Context, ep Endpoint, ev event) error {
	body, err := json.Marshal(ev.payload)
	if err != nil {
		return bus.Permanent(fmt.Errorf("encode webhook %s: %w", ev.id, err))
	}
	now := s.now()
	ts := now.Unix()
	sig, err := Sign(ep.signingKeys(now), ev.id, ts, body)
	if err != nil {
		return bus.Permanent(fmt.Errorf("sign webhook %s for %s: %w", ev.id, ep.ID, err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return bus.Permanent(fmt.Errorf("build webhook request for %s: %w", ep.ID, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "recollect-webhooks/1")
	req.Header.Set(HeaderID, ev.id)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, sig)
	resp, err := s.client.Do(req)
	if err != nil {
		class := "network"
		var ne net.Error
		switch {
		case errors.Is(err, ErrRefusedAddress):
			class = "refused"
		case errors.As(err, &ne) && ne.Timeout():
			class = "timeout"
		}
		return &attemptError{class: class, err: fmt.Errorf("post to webhook %s: %w", ep.ID, err)}
	}
	defer resp.Body.Close()
	// Read at most the limit: the answer is only looked at for the dead
	// letter's reason, and an endpoint must not make us read forever.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, s.cfg.MaxResponseBytes))
	if resp.StatusCode/100 != 2 {
		return &attemptError{class: "status", err: fmt.Errorf("webhook %s answered %d: %.200q", ep.ID, resp.StatusCode, snippet)}
	}
	return nil
}
