package llm

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span attributes follow OpenTelemetry's gen_ai conventions where they
// have a name for the thing.
func (c *Client) startSpan(ctx context.Context, req *Request) (context.Context, trace.Span) {
	return c.tracer.Start(ctx, "llm.chat", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.request.model", c.cfg.ModelFor(req.Tier)),
		attribute.String("llm.tier", string(req.Tier)),
		attribute.String("llm.component", req.component()),
		attribute.String("tenant", req.Tenant),
		attribute.Bool("llm.json", req.JSON),
	))
}

func endSpan(span trace.Span, resp Response, err error) {
	span.SetAttributes(attribute.Int("llm.attempts", resp.Attempts))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return
	}
	span.SetAttributes(
		attribute.String("gen_ai.response.model", resp.Model),
		attribute.String("llm.provider", resp.Provider),
		attribute.Int64("gen_ai.usage.input_tokens", resp.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", resp.OutputTokens),
		attribute.String("gen_ai.response.finish_reasons", resp.FinishReason),
	)
}
