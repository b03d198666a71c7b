package topiary

import (
	"context"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Chatter is the LLM call topiary makes to name topics; *llm.Client is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Option changes the module.
type Option func(*Topiary)

// WithLLM names the topics whose members changed through the LLM (tier
// naming). A nil client, or one whose level is off, leaves the word names.
func WithLLM(c Chatter) Option {
	return func(t *Topiary) {
		if en, ok := c.(interface{ Enabled() bool }); ok && !en.Enabled() {
			c = nil
		}
		t.chat = c
	}
}
