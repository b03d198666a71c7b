package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// firstBackoff is the wait before the first resend when the server gives
// no Retry-After; it doubles with every attempt.
const firstBackoff = 500 * time.Millisecond

// call is one API request.
type call struct {
	method     string
	path       string
	query      url.Values
	body       any    // JSON-encoded when not nil
	out        any    // decoded from a 2xx answer when not nil
	accept     string // the Accept header, when set
	idempotent bool
}

// do sends the call with its JSON body and decodes a 2xx answer into
// cl.out, resending an idempotent call on 429 and 503 (see send).
func (c *Client) do(ctx context.Context, cl call) error {
	var body []byte
	contentType := ""
	if cl.body != nil {
		var err error
		if body, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("encode %s %s: %w", cl.method, cl.path, err)
		}
		contentType = "application/json"
	}
	cl.accept = "application/json"
	resp, err := c.send(ctx, cl, contentType, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if cl.out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(cl.out); err != nil {
		return fmt.Errorf("decode answer of %s %s: %w", cl.method, cl.path, err)
	}
	return nil
}

// send sends a call and returns its 2xx answer, whose body the caller
// closes (do decodes JSON; export streams NDJSON). An idempotent call is
// resent on 429 and 503 after Retry-After (else a doubling backoff), unless
// the wait exceeds the client's limit or the context's deadline.
func (c *Client) send(ctx context.Context, cl call, contentType string, body []byte) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.sendOnce(ctx, cl, contentType, body)
		var apiErr *Error
		if err == nil || !cl.idempotent || attempt >= c.retries || !errors.As(err, &apiErr) || !retryable(apiErr.Status) {
			return resp, err
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = min(firstBackoff<<attempt, c.maxWait)
		}
		if wait > c.maxWait {
			return nil, err
		}
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			return nil, err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, errors.Join(err, serr)
		}
	}
}

// sendOnce sends one attempt; a non-2xx answer is an *Error.
func (c *Client) sendOnce(ctx context.Context, cl call, contentType string, body []byte) (*http.Response, error) {
	u := c.base + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("build %s %s: %w", cl.method, cl.path, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if cl.accept != "" {
		req.Header.Set("Accept", cl.accept)
	}
	req.Header.Set("User-Agent", c.userAgent)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body = io.NopCloser(bytes.NewReader(data))
	e := c.apiError(cl, resp)
	e.body = data
	return nil, e
}

// apiError reads an error answer: the server's JSON error body
// ({"error", "field", "code"}) or, from a proxy or an unknown route, its text.
func (c *Client) apiError(cl call, resp *http.Response) *Error {
	e := &Error{Method: cl.method, Path: cl.path, Status: resp.StatusCode, RetryAfter: c.retryAfter(resp.Header.Get("Retry-After"))}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var body struct {
		Error string `json:"error"`
		Field string `json:"field"`
		Code  string `json:"code"`
	}
	if json.Unmarshal(data, &body) == nil && body.Error != "" {
		e.Message, e.Field, e.Code = body.Error, body.Field, body.Code
	} else {
		e.Message = strings.TrimSpace(string(data))
	}
	return e
}

// retryAfter parses Retry-After: delay seconds or an HTTP date.
func (c *Client) retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return max(0, time.Duration(s)*time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(c.now()))
	}
	return 0
}
