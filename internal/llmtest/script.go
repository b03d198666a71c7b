package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Message is one chat message as the client sent it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one request as received.
type Request struct {
	N              int    // order of arrival, from 1, across both endpoints
	Endpoint       string // EndpointChat or EndpointEmbeddings
	APIKey         string // the bearer token, "" without one
	Header         http.Header
	Model          string
	Messages       []Message // chat
	ResponseFormat string    // chat: response_format.type ("json_object", ...), "" when absent
	MaxTokens      int       // chat: max_tokens or max_completion_tokens
	Temperature    *float64  // chat: nil when absent
	Input          []string  // embeddings
	EncodingFormat string    // embeddings: "float", "base64" or ""
	Body           []byte    // the raw body, for anything else
}

// System joins the contents of the system messages.
func (r Request) System() string { return r.join("system") }

// User joins the contents of the user messages.
func (r Request) User() string { return r.join("user") }

// LastUser is the content of the last user message, "" when none.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

func (r Request) join(role string) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == role {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Reply scripts one answer. The zero Reply is a 200 with empty content.
type Reply struct {
	// Content is the assistant message: anything, including malformed
	// JSON, code fences or prose around JSON.
	Content string
	// Status is the HTTP status; 0 means 200. A status of 400 or more gets
	// an OpenAI error body carrying Error.
	Status int
	// Error is the error message of a failing status; "" uses the status
	// text.
	Error string
	// RetryAfter sets the Retry-After header, in whole seconds rounded up.
	RetryAfter time.Duration
	// Header holds extra response headers (e.g. retry-after-ms).
	Header http.Header
	// Delay waits this long before answering; the wait ends early when the
	// client goes away or the server closes, so a long Delay simulates a
	// server that never answers.
	Delay time.Duration
	// Raw, when set, is sent verbatim as the body instead of a well-formed
	// response (truncated JSON, HTML from a proxy, ...).
	Raw string
	// InputTokens and OutputTokens are the usage counts reported; when
	// both are zero the server reports word counts instead.
	InputTokens, OutputTokens int
	// NoUsage leaves the usage field out of the response.
	NoUsage bool
	// Model is the model reported; "" echoes the requested one.
	Model string
	// FinishReason of the choice; "" means "stop".
	FinishReason string
	// Embeddings are the vectors of an embedding reply, one per input; nil
	// makes up deterministic bag-of-words vectors.
	Embeddings [][]float32
}

// Text is a 200 reply with the given content.
func Text(content string) Reply { return Reply{Content: content} }

// JSON is a 200 reply whose content is v marshalled; v that cannot be
// marshalled makes a reply whose content says so, which a test will notice.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		return Reply{Content: fmt.Sprintf("llmtest: marshal %T: %v", v, err)}
	}
	return Reply{Content: string(b)}
}

// Status is a reply with the given HTTP status and its status text as
// error message.
func Status(code int) Reply { return Reply{Status: code} }

// RateLimited is a 429 asking the client to wait after before retrying.
func RateLimited(after time.Duration) Reply {
	return Reply{Status: http.StatusTooManyRequests, RetryAfter: after, Error: "rate limit reached"}
}
