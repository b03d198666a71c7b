package embedder

import (
	"context"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/lock"
)

// Chatter is the LLM client insert-merge needs; *llm.Client is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Option configures an Embedder.
type Option func(*Embedder)

// WithLLM enables 003's insert merge through c. A client whose Enabled
// method reports false (no --llm-url, or level off) leaves it off, as does
// nil.
func WithLLM(c Chatter) Option {
	return func(e *Embedder) {
		if en, ok := c.(interface{ Enabled() bool }); ok && !en.Enabled() {
			c = nil
		}
		e.chat = c
	}
}

// WithLocker sets the leases that keep one reindex per tenant at a time
// across processes (default: in-process leases, for one process).
func WithLocker(l lock.Locker) Option {
	return func(e *Embedder) {
		if l != nil {
			e.locks = l
		}
	}
}

// WithReindexStatuses records where each reindex request stands in s (the
// state GET /v1/reindex answers); without it the embedder records nothing.
func WithReindexStatuses(s *ReindexStatuses) Option {
	return func(e *Embedder) { e.statuses = s }
}
