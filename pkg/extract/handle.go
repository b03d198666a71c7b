package extract

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// Handle extracts one conversation event. Every fact message id derives
// from the fact and the event (or session window), so a redelivered event
// publishes nothing new.
func (x *Extractor) Handle(ctx context.Context, d *bus.Delivery) error {
	var e memory.Event
	if err := strictjson.Unmarshal(d.Data, &e); err != nil {
		return bus.Permanent(fmt.Errorf("decode event: %w", err))
	}
	// Agents may publish straight onto the subject: validate here too.
	if err := e.Normalize(x.now()); err != nil {
		return bus.Permanent(fmt.Errorf("invalid event %s: %w", e.ID, err))
	}
	switch e.Type {
	case memory.EventTurn:
		return x.handleTurn(ctx, &e)
	case memory.EventCompaction:
		return x.handleCompaction(ctx, d, &e)
	case memory.EventSessionEnd:
		return x.handleSessionEnd(ctx, d, &e)
	case memory.EventMemory:
		return x.publish(ctx, x.explicit(&e))
	case memory.EventFeedback:
		return x.publish(ctx, []memory.FactMessage{{
			Op: memory.FactFeedback, Tenant: e.Tenant, SourceEvent: bus.EventMsgID(e.Tenant, e.ID),
			Feedback: e.Feedback, Memory: memory.Memory{Domain: domains.Default}, Rule: "feedback",
		}})
	}
	return nil
}

// handleTurn publishes the turn's transcript memory and rule facts, then,
// with an LLM, buffers the turn for its session's debounced extraction;
// the turn is acknowledged only once it is buffered.
func (x *Extractor) handleTurn(ctx context.Context, e *memory.Event) error {
	// The message before the turn is linked by the embedder, which sees
	// the session's messages whatever order they are handled in.
	facts := append(x.Capture(e), x.episodes(eventOrigin(e, memory.SourceTurn), []said{turnSaid(e)})...)
	if err := x.publish(ctx, facts); err != nil {
		return fmt.Errorf("event %s: %w", e.ID, err)
	}
	if !x.llmOn() {
		return nil
	}
	return x.recordTurn(ctx, e)
}
