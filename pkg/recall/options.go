package recall

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Chatter is the model client query expansion and rerank need; *llm.Client
// is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Option configures a Recaller.
type Option func(*Recaller)

// WithLLM enables query expansion and rerank through c. A client whose
// Enabled method reports false (level off), like nil, leaves them off:
// requests asking for them are answered without and told so.
func WithLLM(c Chatter) Option {
	return func(r *Recaller) {
		if e, ok := c.(interface{ Enabled() bool }); ok && !e.Enabled() {
			c = nil
		}
		r.chat = c
	}
}

// WithRegisterer registers the recall metrics with reg.
func WithRegisterer(reg prometheus.Registerer) Option {
	return func(r *Recaller) { r.reg = reg }
}
