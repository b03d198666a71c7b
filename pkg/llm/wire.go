package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Body limits: an answer larger than this is a broken server, not a reply.
const (
	maxAnswerBytes = 16 << 20
	maxErrorBytes  = 64 << 10
	maxErrorText   = 512
)

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// answer is what one successful attempt brought back.
type answer struct {
	content, finish, model string
	in, out                int64
}

// post sends one chat request to p and reads the answer. A non-2xx answer
// is an *HTTPError; a 2xx one it cannot read wraps errBadAnswer.
func (c *Client) post(ctx context.Context, p *provider, model string, body []byte) (answer, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("build request: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if p.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			uerr.URL = p.shown // the endpoint may hold a secret in its query
		}
		return answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		return answer{}, &HTTPError{
			Provider:   p.name,
			Model:      model,
			Status:     resp.StatusCode,
			Message:    errorMessage(raw),
			RetryAfter: retryAfter(resp.Header, c.now()),
		}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return answer{}, fmt.Errorf("read answer: %w", err)
	}
	if len(raw) > maxAnswerBytes {
		return answer{}, fmt.Errorf("%w: larger than %d bytes", errBadAnswer, maxAnswerBytes)
	}
	var ca chatAnswer
	if err := json.Unmarshal(raw, &ca); err != nil {
		return answer{}, fmt.Errorf("%w: %v: %s", errBadAnswer, err, clip(string(raw)))
	}
	if len(ca.Choices) == 0 {
		return answer{}, fmt.Errorf("%w: no choices: %s", errBadAnswer, clip(string(raw)))
	}
	ch := ca.Choices[0]
	a := answer{finish: ch.FinishReason, model: ca.Model}
	if ch.Message.Content != nil {
		a.content = *ch.Message.Content
	}
	if ca.Usage != nil {
		a.in, a.out = ca.Usage.PromptTokens, ca.Usage.CompletionTokens
	}
	return a, nil
}

// errorMessage digs the message out of the error shapes servers use:
// OpenAI's {"error":{"message"}}, Ollama's {"error":"..."}, {"message"},
// or plain text.
func errorMessage(raw []byte) string {
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(raw, &shaped) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var flat string
		switch {
		case json.Unmarshal(shaped.Error, &nested) == nil && nested.Message != "":
			return clip(nested.Message)
		case json.Unmarshal(shaped.Error, &flat) == nil && flat != "":
			return clip(flat)
		case shaped.Message != "":
			return clip(shaped.Message)
		case shaped.Detail != "":
			return clip(shaped.Detail)
		}
	}
	return clip(strings.TrimSpace(string(raw)))
}

func clip(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	return s[:maxErrorText] + "…"
}

// rejectsJSONMode reports whether err is a provider saying it does not take
// response_format.
func rejectsJSONMode(err error) bool {
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(he.Message)
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "json_object") ||
		strings.Contains(msg, "json mode") || strings.Contains(msg, "response format")
}
