package extract

import (
	"github.com/recollect-dev/recollect/pkg/extract/filter"
	"github.com/recollect-dev/recollect/pkg/extract/rules"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// explicit is a memory the agent or user stated (memory_learn, MCP,
// "memory" events): no grounding, and never dropped after the door took
// it. A secret in it is redacted in place; an instruction aimed at the
// model quarantines it (stored, counted, kept out of every prompt).
// Only content the door would have refused (empty, too long) is left out.
func (x *Extractor) explicit(e *memory.Event) []memory.FactMessage {
	in := e.Memory
	// A statement made on purpose starts at least where capture's rules
	// start the same statement (rules.ImportanceOf: preference 0.7), so it
	// reaches core by the gate an inferred one passes (issue 19), and
	// never below its type's prompt priority (policy 1.0).
	imp := max(rules.ImportanceOf(in.Type), float64(in.Type.Priority())/4)
	if in.Importance != nil {
		imp = *in.Importance
	}
	o := eventOrigin(e, memory.SourceAPI)
	st := x.long.CheckStated(filter.Candidate{Key: in.Key, Content: in.Content, Tags: in.Tags})
	if st.Verdict == filter.VerdictRefuse {
		x.m.rejected.WithLabelValues(string(st.Reason), producerAPI).Inc()
		x.log.Warn("explicit memory refused", "tenant", o.tenant, "event", e.ID, "reason", st.Reason, "detail", st.Detail)
		return nil
	}
	// The id is the one POST /v1/memories announced (from the content as
	// sent), unless a secret was redacted: an id hashed from the secret
	// would let a guess be checked against it, so it comes from the event.
	id := memory.MemoryID(o.tenant, o.namespace, o.subject, in.Content)
	if len(st.Redacted) > 0 {
		id = memory.RedactedID(o.tenant, o.namespace, o.subject, o.event)
	}
	fm, ok := x.build(o, candidate{
		key: st.Key, content: st.Content, tags: st.Tags, domain: in.Domain, typ: in.Type, kind: in.Kind,
		importance: imp, confidence: memory.ConfidenceExplicit, rule: producerAPI, producer: producerAPI, id: id,
	})
	if !ok {
		return nil
	}
	fm.Memory.Scope = in.Scope
	if st.Quarantine != "" {
		fm.Memory.Quarantine = cutQuarantine(st.Quarantine)
		x.m.quarantined.WithLabelValues(filter.QuarantineLabel(st.Quarantine)).Inc()
		x.log.Info("explicit memory quarantined", "tenant", o.tenant, "event", e.ID, "memory", fm.Memory.ID,
			"reason", st.Quarantine)
	}
	for _, k := range st.Redacted {
		x.m.redacted.WithLabelValues(k).Inc()
	}
	if len(st.Redacted) > 0 {
		x.log.Info("secrets redacted from an explicit memory", "tenant", o.tenant, "event", e.ID,
			"memory", fm.Memory.ID, "kinds", st.Redacted)
	}
	return []memory.FactMessage{fm}
}

// cutQuarantine bounds a reason to memory.MaxQuarantineChars bytes (the
// detectors' names are far shorter).
func cutQuarantine(r string) string {
	if len(r) > memory.MaxQuarantineChars {
		return r[:memory.MaxQuarantineChars]
	}
	return r
}
