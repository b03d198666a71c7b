package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat call.
type Request struct {
	Tenant    string // bounds concurrency and is recorded in usage
	Component string // who calls, for usage: extract, gate, merge, ...; "" records the tier
	Tier      Tier   // picks the model
	System    string // sent as the first message when not empty
	Messages  []Message
	// JSON asks for a JSON object answer: the prompt gains a JSON
	// instruction unless it mentions JSON already (OpenAI's JSON mode
	// demands it), and response_format is sent as JSONMode allows. The
	// answer is still text; DecodeJSON reads it leniently.
	JSON      bool
	MaxTokens int // 0: the server's default; sent as max_tokens
	// Temperature is sent when not nil; nil leaves the server's default,
	// which models that accept only their default need.
	Temperature *float64
}

// Response is a successful call's answer.
type Response struct {
	Content      string
	FinishReason string // "stop"; "length" means Content was cut at MaxTokens
	InputTokens  int64
	OutputTokens int64
	Model        string        // as the provider reported it, else as requested
	Provider     string        // host[:port] of the provider that answered
	Duration     time.Duration // the whole call: tenant slot, retries and waits included
	Attempts     int           // HTTP attempts made, over all providers
}

// Temperature returns a pointer to t, for Request.Temperature.
func Temperature(t float64) *float64 { return &t }

// jsonHint is added to the system prompt of JSON calls that do not mention
// JSON.
const jsonHint = "Answer with a single JSON object and nothing else."

func (r *Request) validate() error {
	var errs []error
	if !r.Tier.Valid() {
		errs = append(errs, fmt.Errorf("unknown tier %q", r.Tier))
	}
	if len(r.Messages) == 0 && r.System == "" {
		errs = append(errs, errors.New("no messages"))
	}
	for i, m := range r.Messages {
		if m.Role == "" {
			errs = append(errs, fmt.Errorf("message %d has no role", i))
		}
	}
	if r.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("max tokens %d: must not be negative", r.MaxTokens))
	}
	return errors.Join(errs...)
}

// component is what usage records as the caller.
func (r *Request) component() string {
	if r.Component != "" {
		return r.Component
	}
	if r.Tier != TierDefault {
		return string(r.Tier)
	}
	return "llm"
}

// messages is what is sent: the system prompt first, with the JSON hint
// when needed.
func (r *Request) messages() []Message {
	system := r.System
	if r.JSON && !r.mentionsJSON() {
		system = strings.TrimSpace(system + "\n\n" + jsonHint)
	}
	out := make([]Message, 0, len(r.Messages)+1)
	if system != "" {
		out = append(out, Message{Role: RoleSystem, Content: system})
	}
	return append(out, r.Messages...)
}

func (r *Request) mentionsJSON() bool {
	if strings.Contains(strings.ToLower(r.System), "json") {
		return true
	}
	for _, m := range r.Messages {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}
