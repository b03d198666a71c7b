package app

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// usageEmbedder records every call of the built-in model in the usage log
// (remote models record their own HTTP attempts). It sits inside the
// embedding cache, so only cache misses count as model calls.
type usageEmbedder struct {
	embed.Embedder
	// tokens counts a text's model tokens (the model under Embedder,
	// which may be a coalescer that cannot).
	tokens    tokenCounter
	component string
	sink      usage.Sink
	now       func() time.Time
}

type tokenCounter interface{ Tokens(string) int }

func (u usageEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	begin := time.Now()
	vecs, err := u.Embedder.Embed(ctx, texts)
	var tokens int64
	if u.tokens != nil {
		for _, t := range texts {
			tokens += int64(u.tokens.Tokens(t))
		}
	}
	outcome := usage.OutcomeOK
	if err != nil {
		outcome = usage.OutcomeError
	}
	var traceID string
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		traceID = sc.TraceID().String()
	}
	u.sink.Record(ctx, usage.Record{Time: u.now(), Tenant: usage.TenantFrom(ctx), Component: u.component, Provider: "builtin",
		Model: u.Model(), InputTokens: tokens, Duration: time.Since(begin), Outcome: outcome, TraceID: traceID})
	return vecs, err
}
