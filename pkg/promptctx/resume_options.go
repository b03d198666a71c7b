package promptctx

import (
	"context"
	"time"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Chatter is the LLM call resume makes to compress a section; *llm.Client
// is one.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (llm.Response, error)
}

// EpochHistory returns when a tenant's last consolidation epochs began,
// oldest first, none when it never had one; consolidate.EpochStarts over
// the epoch bucket is one.
type EpochHistory func(ctx context.Context, tenant string) ([]time.Time, error)

// resumeDeps are resume's optional helpers.
type resumeDeps struct {
	chat    Chatter
	epochs  EpochHistory
	summary *summaryCache
}

// WithLLM compresses resume's Core and Recent sections through the LLM
// (tier resume) when they are over their budget, instead of truncating
// them. A nil client, or one whose level is off, keeps truncation.
func WithLLM(c Chatter) Option {
	return func(a *Assembler) {
		if en, ok := c.(interface{ Enabled() bool }); ok && !en.Enabled() {
			c = nil
		}
		a.resume.chat = c
		a.resume.summary = newSummaryCache(summaryCacheSize)
	}
}

// WithEpochHistory makes resume's Recent section count back in
// consolidation epochs (003 §7) rather than a fixed window.
func WithEpochHistory(h EpochHistory) Option {
	return func(a *Assembler) { a.resume.epochs = h }
}
