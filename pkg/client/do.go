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
	body       any // JSON-encoded when not nil
	out        any // decoded from a 2xx answer when not nil
	idempotent bool
}

// do sends the call, resending an idempotent one on 429 and 503.
func (c *Client) do(ctx context.Context, cl call) error {
	var body []byte
	if cl.body != nil {
		var err error
		if body, err = json.Marshal(cl.body); err != nil {
			return fmt.Errorf("encode %s %s: %w", cl.method, cl.path, err)
		}
	}
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, cl, body)
		var apiErr *Error
		if err == nil || !cl.idempotent || attempt >= c.retries || !errors.As(err, &apiErr) || !retryable(apiErr.Status) {
			return err
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = min(firstBackoff<<attempt, c.maxWait)
		}
		if wait > c.maxWait {
			return err
		}
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			return err
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// once sends one attempt.
func (c *Client) once(ctx context.Context, cl call, body []byte) error {
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
		return fmt.Errorf("build %s %s: %w", cl.method, cl.path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.apiError(cl, resp)
	}
	if cl.out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(cl.out); err != nil {
		return fmt.Errorf("decode answer of %s %s: %w", cl.method, cl.path, err)
	}
	return nil
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
