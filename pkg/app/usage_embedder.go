package app

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// usageEmbedder records every query-time model call in the usage log.
type usageEmbedder struct {
	embed.Embedder
	sink usage.Sink
	now  func() time.Time
}

type tokenCounter interface{ Tokens(string) int }

func (u usageEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	begin := time.Now()
	vecs, err := u.Embedder.Embed(ctx, texts)
	var tokens int64
	if tc, ok := u.Embedder.(tokenCounter); ok {
		for _, t := range texts {
			tokens += int64(tc.Tokens(t))
		}
	}
	outcome := usage.OutcomeOK
	if err != nil {
		outcome = usage.OutcomeError
	}
	u.sink.Record(ctx, usage.Record{Time: u.now(), Component: "query", Provider: "builtin", Model: u.Model(),
		InputTokens: tokens, Duration: time.Since(begin), Outcome: outcome, TraceID: trace.SpanContextFromContext(ctx).TraceID().String()})
	return vecs, err
}
