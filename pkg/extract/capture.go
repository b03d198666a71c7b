package extract

import (
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// capture is zero-cost rule capture (004) over msgs: each fact found is
// filtered against the message that produced it.
func (x *Extractor) capture(o *origin, msgs []memory.Message) []memory.FactMessage {
	var out []memory.FactMessage
	seen := map[string]bool{}
	for _, m := range msgs {
		found := x.rules.Capture(m.Role, m.Content)
		if len(found) == 0 {
			continue
		}
		src := filter.NewSource(m.Content)
		for _, f := range found {
			fm, ok := x.admit(o, src, x.filter, candidate{
				key: f.Key, content: f.Content, evidence: f.Evidence, tags: f.Tags, domain: f.Domain,
				typ: f.Type, kind: f.Kind, importance: f.Importance, confidence: f.Confidence,
				rule: f.Rule, producer: producerRule,
			})
			if !ok || seen[fm.Memory.ID] {
				continue
			}
			seen[fm.Memory.ID] = true
			out = append(out, fm)
		}
	}
	return out
}

// Capture is rule capture and the filters over one event, without the
// LLM and without publishing: what a turn yields at once.
func (x *Extractor) Capture(e *memory.Event) []memory.FactMessage {
	switch e.Type {
	case memory.EventTurn:
		return x.capture(eventOrigin(e, memory.SourceRule), []memory.Message{{Role: e.Role, Content: e.Content}})
	case memory.EventCompaction:
		return x.capture(eventOrigin(e, memory.SourceCompaction), e.Messages)
	case memory.EventSessionEnd:
		return x.capture(eventOrigin(e, memory.SourceExit), e.Messages)
	}
	return nil
}
