package api

import (
	"github.com/recollect-dev/recollect/pkg/memory"
)

// ContextResponse is the answer of POST /v1/context.
type ContextResponse struct {
	Context string `json:"context"`
	// Tokens is the exact count of Context, never more than Budget.
	Tokens    int    `json:"tokens"`
	Budget    int    `json:"budget"`
	Tokenizer string `json:"tokenizer,omitempty"`
	// Layers holds each layer's tokens (its section counted alone); their
	// sum is never more than Budget either.
	Layers map[string]int `json:"layers"`
	// Memories lists what the block holds, layer by layer, in block order.
	Memories []IncludedMemory `json:"memories"`
}

// IncludedMemory is one memory in a context block.
type IncludedMemory struct {
	Layer string `json:"layer"`
	// Score is what ordered the memory within its layer.
	Score float64 `json:"score"`
	// Relevance is recall's score when recall found the memory.
	Relevance float64 `json:"relevance,omitempty"`
	// ScopeMatch is set when one of the memory's scope globs matched the
	// request's file path.
	ScopeMatch bool          `json:"scope_match,omitempty"`
	Tokens     int           `json:"tokens"`
	Memory     memory.Memory `json:"memory"`
}

// TopicSummary is one leaf topic in resume's index; POST /v1/topics with its
// id drills into it.
type TopicSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Size counts the topic's memories that the request's namespaces hold.
	Size int `json:"size"`
}

// ResumeResponse is the answer of GET /v1/resume (003 §7).
type ResumeResponse struct {
	Core     []memory.Memory `json:"core"`
	Recent   []memory.Memory `json:"recent"`
	Topics   []TopicSummary  `json:"topics"`
	Triggers []string        `json:"triggers"`
	// Text is the four sections as one prompt text; Tokens its exact count.
	Text     string         `json:"text"`
	Tokens   int            `json:"tokens"`
	Budget   int            `json:"budget"`
	Sections map[string]int `json:"sections"`
	// Compressed names the sections the LLM summarised to fit their
	// budget; Core and Recent then list the memories the summary covers.
	Compressed []string `json:"compressed,omitempty"`
}

// ContextRequest is the body of POST /v1/context.
//
// It mirrors promptctx.ContextRequest field for field.
type ContextRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Query is the task at hand; without one the contextual layer is empty
	// unless FilePath brings memories scoped to that file.
	Query string `json:"query,omitempty"`
	// SessionID is accepted for symmetry with resume and for tracing; it
	// does not change the block.
	SessionID string `json:"session_id,omitempty"`
	// Subject limits memories to the subject's own, lore and unowned ones,
	// and picks the personality directive.
	Subject string `json:"subject,omitempty"`
	// FilePath is the file being worked on: memories scoped to other files
	// are left out, memories scoped to it rank higher.
	FilePath string `json:"file_path,omitempty"`
	// Budget in tokens (cl100k_base); 0 means the configured default (800).
	Budget int `json:"budget,omitempty"`
	// AsOf is passed to recall: the time the query is asked at (RFC 3339,
	// default now). Given, the block holds what was true then (valid
	// time), versions superseded since included.
	AsOf Instant `json:"as_of,omitzero"`
	// KnownAt builds the block from what Recollect knew then (record time).
	KnownAt Instant `json:"known_at,omitzero"`
}
