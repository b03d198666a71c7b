package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// origin is where facts come from: the event or the session window they
// were extracted from, and the ids that keep their publication idempotent.
type origin struct {
	tenant, namespace, subject, channel, session string
	source                                       memory.Source
	// event is the idempotency id: fact message ids end with it, and the
	// embedder counts one reinforcement per event.
	event string
	ids   []string // source ids recorded on the memories
	ts    time.Time
}

// eventOrigin is the origin of facts extracted from one event.
func eventOrigin(e *memory.Event, source memory.Source) *origin {
	id := bus.EventMsgID(e.Tenant, e.ID)
	return &origin{tenant: e.Tenant, namespace: e.Namespace, subject: e.Subject, channel: e.Channel,
		session: e.SessionID, source: source, event: id, ids: []string{id}, ts: e.TS.UTC()}
}

// candidate is a fact before the filters.
type candidate struct {
	key, content, evidence string
	tags                   []string
	domain                 string
	typ                    memory.Type
	kind                   memory.Kind
	layer                  memory.Layer
	importance, confidence float64
	rule, producer         string
	// id, when set, is the memory id (styles and the directive are keyed by
	// their key, so a new observation reinforces the old one); "" derives
	// it from the content, so exact duplicates are one memory.
	id string
}

// admit runs the filters on c and builds its fact message. src is the text
// the fact must be grounded in; nil checks everything but grounding (an
// explicit memory, a transcript chunk, a directive), with f bounding the
// length. Rejections are counted by reason and producer.
func (x *Extractor) admit(o *origin, src *filter.Source, f *filter.Filter, c candidate) (memory.FactMessage, bool) {
	cand := filter.Candidate{Key: c.key, Content: c.content, Evidence: c.evidence, Tags: c.tags}
	var res filter.Result
	if src != nil {
		res = f.CheckSource(src, cand)
	} else {
		res = f.CheckExplicit(cand)
	}
	if !res.Accepted {
		x.m.rejected.WithLabelValues(string(res.Reason), c.producer).Inc()
		x.log.Debug("fact rejected", "tenant", o.tenant, "session", o.session, "subject", o.subject,
			"producer", c.producer, "reason", res.Reason, "detail", res.Detail)
		return memory.FactMessage{}, false
	}
	c.content, c.key, c.evidence, c.tags = res.Content, res.Key, res.Evidence, res.Tags
	return x.build(o, c)
}

// build makes the fact message of a candidate the filters accepted.
func (x *Extractor) build(o *origin, c candidate) (memory.FactMessage, bool) {
	ts := o.ts
	mem := memory.Memory{
		ID:         c.id,
		Tenant:     o.tenant,
		Namespace:  o.namespace,
		Subject:    o.subject,
		Channel:    o.channel,
		Session:    o.session,
		Key:        cutKey(c.key),
		Content:    c.content,
		Domain:     x.domains.Resolve(c.domain),
		Type:       c.typ,
		Kind:       c.kind,
		Layer:      c.layer,
		Importance: c.importance,
		Confidence: c.confidence,
		Tags:       limitTags(c.tags),
		Evidence:   c.evidence,
		Source:     o.source,
		CreatedAt:  ts,
		ModifiedAt: ts,
		ValidFrom:  ts,
		SourceIDs:  append([]string(nil), o.ids...),
	}
	if mem.ID == "" {
		mem.ID = memory.MemoryID(o.tenant, o.namespace, o.subject, mem.Content)
	}
	if mem.Layer == "" {
		mem.Layer = memory.LayerBuffer
	}
	if !mem.Kind.Valid() {
		mem.Kind = mem.Type.DefaultKind()
	}
	if len(mem.SourceIDs) > memory.MaxSourceIDs {
		mem.SourceIDs = mem.SourceIDs[len(mem.SourceIDs)-memory.MaxSourceIDs:]
	}
	if err := mem.Validate(); err != nil {
		// The filters passed it, so this is a bug in what built it: say so.
		x.log.Warn("extracted fact is invalid, dropped", "tenant", o.tenant, "session", o.session, "producer", c.producer, "error", err)
		x.m.rejected.WithLabelValues("invalid", c.producer).Inc()
		return memory.FactMessage{}, false
	}
	return memory.FactMessage{Op: memory.FactUpsert, Tenant: o.tenant, SourceEvent: o.event, Memory: mem, Rule: c.rule}, true
}

// publish sends facts on their domains' subjects. Message ids are the
// memory id and the origin's event, so a retried extraction publishes
// nothing twice within the stream's duplicate window, and the embedder
// reinforces once per event after it.
func (x *Extractor) publish(ctx context.Context, facts []memory.FactMessage) error {
	if len(facts) == 0 {
		return nil
	}
	msgs := make([]bus.Msg, 0, len(facts))
	seen := make(map[string]bool, len(facts))
	kept := facts[:0:0]
	for _, f := range facts {
		id := f.Memory.ID
		if f.Op == memory.FactFeedback {
			id = "feedback:" + f.Feedback.MemoryID
		}
		id += ":" + f.SourceEvent
		if seen[id] {
			continue
		}
		seen[id] = true
		data, err := json.Marshal(f)
		if err != nil {
			return bus.Permanent(fmt.Errorf("encode fact: %w", err))
		}
		msgs = append(msgs, bus.Msg{Subject: bus.FactSubject(f.Memory.Domain), ID: id, Data: data})
		kept = append(kept, f)
	}
	if err := x.bus.PublishBatch(ctx, msgs); err != nil {
		return fmt.Errorf("publish %d facts: %w", len(msgs), err)
	}
	for _, f := range kept {
		x.m.facts.WithLabelValues(f.Memory.Domain, f.Rule).Inc()
	}
	return nil
}
