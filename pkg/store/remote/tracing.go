package remote

import (
	"context"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

const tracerName = "recollect/store/remote"

// startSpan opens the client or server span of one request. The caller's
// trace travels in the request's headers (W3C trace context, through the
// global propagator), so the server's span joins it.
func startSpan(ctx context.Context, kind trace.SpanKind, op, subject string) (context.Context, trace.Span) {
	return otel.Tracer(tracerName).Start(ctx, "store "+op,
		trace.WithSpanKind(kind),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", subject),
		))
}

// injectTrace writes ctx's trace into h; nats.Header and http.Header share
// a type and both canonicalise keys.
func injectTrace(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
}

func extractTrace(ctx context.Context, h nats.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(h))
}

// endSpan records err, if any, and ends the span.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
