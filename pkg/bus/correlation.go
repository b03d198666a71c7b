package bus

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
)

type correlationKey struct{}

// WithCorrelationID returns ctx carrying id; Publish copies it into the
// Recollect-Correlation-Id header and the runner restores it for handlers.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID is the id carried by ctx, or "".
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// headerGet reads key exactly first, then case-insensitively, because
// nats.Header is case-sensitive and agents publishing directly may spell
// headers as HTTP would (traceparent, Traceparent).
func headerGet(h nats.Header, key string) string {
	if v := h.Get(key); v != "" {
		return v
	}
	for k, vs := range h {
		if len(vs) > 0 && strings.EqualFold(k, key) {
			return vs[0]
		}
	}
	return ""
}

// headerCarrier adapts nats.Header to OpenTelemetry's TextMapCarrier.
type headerCarrier nats.Header

func (c headerCarrier) Get(key string) string { return headerGet(nats.Header(c), key) }
func (c headerCarrier) Set(key, value string) { nats.Header(c).Set(key, value) }
func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
