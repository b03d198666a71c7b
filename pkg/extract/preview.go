package extract

import (
	"context"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Preview returns the facts the extractor would publish for e at once,
// without publishing or touching any state: rule capture and, with an LLM,
// the per-domain extraction of the event's messages (a turn's own content
// for a turn), all through the filters. Benchmarks and dry runs use it.
func (x *Extractor) Preview(ctx context.Context, e *memory.Event) ([]memory.FactMessage, error) {
	if err := e.Normalize(x.now()); err != nil {
		return nil, err
	}
	facts := x.Capture(e)
	if !x.llmOn() {
		return facts, nil
	}
	msgs, source := e.Messages, memory.SourceExit
	switch e.Type {
	case memory.EventTurn:
		msgs, source = []memory.Message{{ID: e.ID, Role: e.Role, Content: e.Content, TS: e.TS}}, memory.SourceTurn
	case memory.EventCompaction:
		source = memory.SourceCompaction
	case memory.EventSessionEnd:
	default:
		return facts, nil
	}
	o := eventOrigin(e, source)
	wins, _ := windows(msgs, x.limits())
	if len(wins) == 0 {
		return facts, nil
	}
	res := x.extractModel(ctx, o, wins)
	if res.failedAll() {
		return facts, errModelUnavailable
	}
	facts = append(facts, x.modelFacts(o, wins, res)...)
	if n := res.failed(); n > 0 {
		return facts, fmt.Errorf("llm extraction: %d of %d calls failed or were unreadable", n, len(res.calls))
	}
	return facts, nil
}
