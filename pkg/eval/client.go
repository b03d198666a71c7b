package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// client speaks Recollect's public HTTP API.
type client struct {
	base string
	http *http.Client
}

func newClient(base string) *client {
	return &client{base: base, http: &http.Client{Timeout: time.Minute}}
}

// postEvents sends one batch, resending it while ingest answers 503 (the
// event ids make resends safe).
func (c *client) postEvents(ctx context.Context, events []memory.Event) error {
	body, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		return fmt.Errorf("encode events: %w", err)
	}
	for {
		status, retry, err := c.do(ctx, http.MethodPost, "/v1/events", body, nil)
		if err != nil {
			return fmt.Errorf("post %d events: %w", len(events), err)
		}
		if status != http.StatusServiceUnavailable {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("post %d events: %w", len(events), ctx.Err())
		case <-time.After(retry):
		}
	}
}

type listPage struct {
	Memories []memory.Memory `json:"memories"`
	Next     string          `json:"next"`
}

// listMemories reads every memory of a tenant, page by page.
func (c *client) listMemories(ctx context.Context, tenant string) ([]memory.Memory, error) {
	var out []memory.Memory
	after := ""
	for {
		q := url.Values{"tenant": {tenant}, "limit": {"1000"}}
		if after != "" {
			q.Set("after", after)
		}
		var page listPage
		if err := c.call(ctx, http.MethodGet, "/v1/memories?"+q.Encode(), nil, &page); err != nil {
			return nil, fmt.Errorf("list memories of %s: %w", tenant, err)
		}
		out = append(out, page.Memories...)
		if page.Next == "" {
			return out, nil
		}
		after = page.Next
	}
}

type recallRequest struct {
	Tenant string `json:"tenant"`
	Query  string `json:"query"`
	K      int    `json:"k"`
	// PerDomain lifts the per-domain cap to k: every turn is one domain.
	PerDomain int `json:"per_domain"`
	// Dry asks recall not to count the access: scoring must not reinforce.
	Dry bool `json:"dry"`
	// AsOf is the moment the question is asked at (the conversation's last
	// session), for servers whose recall reads time relative to it; nil
	// leaves the field out.
	AsOf *time.Time `json:"as_of,omitempty"`
}

type recallResponse struct {
	Memories []struct {
		Memory memory.Memory `json:"memory"`
	} `json:"memories"`
}

func (c *client) recall(ctx context.Context, tenant, query string, k int) ([]memory.Memory, error) {
	return c.recallAt(ctx, tenant, query, k, nil)
}

// recallAt recalls as of a moment (nil: the server's now).
func (c *client) recallAt(ctx context.Context, tenant, query string, k int, asOf *time.Time) ([]memory.Memory, error) {
	body, err := json.Marshal(recallRequest{Tenant: tenant, Query: query, K: k, PerDomain: k, Dry: true, AsOf: asOf})
	if err != nil {
		return nil, fmt.Errorf("encode recall: %w", err)
	}
	var resp recallResponse
	if err := c.call(ctx, http.MethodPost, "/v1/recall", body, &resp); err != nil {
		return nil, fmt.Errorf("recall %q in %s: %w", query, tenant, err)
	}
	out := make([]memory.Memory, len(resp.Memories))
	for i, r := range resp.Memories {
		out[i] = r.Memory
	}
	return out, nil
}

// call is do for requests that are not retried: a 503 is an error too.
func (c *client) call(ctx context.Context, method, path string, body []byte, out any) error {
	status, _, err := c.do(ctx, method, path, body, out)
	if err == nil && status == http.StatusServiceUnavailable {
		err = fmt.Errorf("%s %s answered 503: server unavailable", method, path)
	}
	return err
}

// do sends a request and decodes a 2xx answer into out. A 503 is returned as
// a status with its Retry-After, not an error; other statuses are errors
// carrying the server's message.
func (c *client) do(ctx context.Context, method, path string, body []byte, out any) (int, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable:
		_, _ = io.Copy(io.Discard, resp.Body)
		retry := time.Second
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			retry = time.Duration(s) * time.Second
		}
		return resp.StatusCode, retry, nil
	case resp.StatusCode/100 != 2:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, 0, &statusError{what: method + " " + path, status: resp.StatusCode, text: resp.Status, msg: string(bytes.TrimSpace(msg))}
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, 0, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.StatusCode, 0, fmt.Errorf("decode answer of %s %s: %w", method, path, err)
	}
	return resp.StatusCode, 0, nil
}

// statusError is a non-2xx answer other than 503.
type statusError struct {
	what   string // method and path
	status int
	text   string // the status line's text
	msg    string // the server's message
}

func (e *statusError) Error() string { return fmt.Sprintf("%s answered %s: %s", e.what, e.text, e.msg) }
