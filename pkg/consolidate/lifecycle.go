package consolidate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Phase names, as the audit log records them.
const (
	PhaseHygiene   = "hygiene"
	PhasePromote   = "promote"
	PhaseTriage    = "triage"
	PhaseGate      = "gate"
	PhaseSupersede = "supersede"
	PhaseReconcile = "reconcile"
	PhaseMerge     = "merge"
	PhaseDistill   = "distill"
	PhaseAudit     = "audit"
	PhaseDecay     = "decay"
	PhaseArchive   = "archive"
	PhaseRetention = "retention"
	PhaseDedup     = "dedup"
	PhaseOverlap   = "overlap"
)

// hygiene is 003's tag cleanup (step 1) and core hygiene (§2.6): lifecycle
// tags that no longer mean anything in the memory's layer are removed
// (_triaged outside the buffer, gate rejections outside working), and
// session notes and ephemeral memories are demoted from core.
func (r *run) hygiene() {
	r.each(func(m *memory.Memory) {
		if !active(m) || !r.mutable(m) {
			return
		}
		if stale := staleTags(m); len(stale) > 0 {
			r.change(m, PhaseHygiene, "tag", fmt.Sprintf("stale lifecycle tags %v removed in %s", stale, m.Layer), DecidedByRule, "",
				func(m *memory.Memory) {
					m.Tags = removeTags(m.Tags, func(t string) bool { return slices.Contains(stale, t) })
				})
		}
		if m.Layer != memory.LayerCore {
			return
		}
		if sessionNote(m) || hasTag(m, TagEphemeral) || hasTag(m, TagAutoDistilled) {
			r.change(m, PhaseHygiene, "demote", "session notes, ephemeral and distilled memories do not stay in core", DecidedByRule, "",
				func(m *memory.Memory) { m.Layer = memory.LayerWorking })
			r.stats.Demoted++
		}
	})
}

// promoteBuffer is 003 §2.2's mechanical buffer → working promotion: a
// reinforcement score of at least BufferThreshold, or a lesson or
// procedure that spent KindPromoteAge epochs in the buffer.
func (r *run) promoteBuffer() {
	var cutoff int64 = -1
	if n := len(r.starts); r.rules.KindPromoteAge > 0 && n >= r.rules.KindPromoteAge {
		cutoff = int64(n - r.rules.KindPromoteAge)
	}
	r.each(func(m *memory.Memory) {
		if !active(m) || !r.mutable(m) || m.Layer != memory.LayerBuffer || stayInBuffer(m) {
			return
		}
		var why string
		switch {
		case Reinforcement(m) >= r.rules.BufferThreshold:
			why = fmt.Sprintf("reinforcement %.1f ≥ %.1f", Reinforcement(m), r.rules.BufferThreshold)
		case (m.Kind == memory.KindProcedural || hasTag(m, TagLesson)) && !hasTag(m, TagDistilled) && cutoff >= 0 &&
			m.CreatedAt.Before(r.starts[cutoff]):
			why = fmt.Sprintf("%s spent %d epochs in the buffer", kindOrLesson(m), r.rules.KindPromoteAge)
		default:
			return
		}
		r.change(m, PhasePromote, "promote", why, DecidedByRule, "", func(m *memory.Memory) { m.Layer = memory.LayerWorking })
		r.stats.Promoted++
	})
}

// staleTags are m's lifecycle tags its layer makes meaningless: triage
// reads _triaged only in the buffer, the gate its rejections only in
// working (a rejected memory later promoted by the audit, or demoted).
func staleTags(m *memory.Memory) []string {
	var out []string
	for _, t := range m.Tags {
		name, _, _ := strings.Cut(t, "@")
		switch {
		case t == TagTriaged && m.Layer != memory.LayerBuffer,
			strings.HasPrefix(name, TagGateRejected) && m.Layer != memory.LayerWorking:
			out = append(out, t)
		}
	}
	return out
}

func kindOrLesson(m *memory.Memory) string {
	if hasTag(m, TagLesson) {
		return "lesson"
	}
	return string(m.Kind)
}

// decay lowers every active memory's importance by its kind's rate (003
// §2.7). It is one audit entry for the epoch, not one per memory; the
// memories' own epoch stamp says they were decayed.
func (r *run) decay() {
	r.each(func(m *memory.Memory) {
		if !active(m) || !r.mutable(m) {
			return
		}
		d := r.rules.Decay(m.Kind)
		if d <= 0 || m.Importance <= 0 {
			return
		}
		r.touch(m)
		m.Importance = max(0, m.Importance-d)
		r.stats.Decayed++
	})
	if r.stats.Decayed > 0 {
		r.record(Op{Phase: PhaseDecay, Op: "adjust", Applied: true, Decider: DecidedByRule,
			Reason: fmt.Sprintf("%d memories decayed by kind (episodic %.3f, semantic %.3f, procedural %.3f)",
				r.stats.Decayed, r.rules.DecayEpisodic, r.rules.DecaySemantic, r.rules.DecayProcedural)})
	}
}

// addTag returns tags with t added (at most memory.MaxTags: the oldest
// lifecycle tag gives way first).
func addTag(tags []string, t string) []string {
	for _, x := range tags {
		if x == t {
			return tags
		}
	}
	if len(tags) >= memory.MaxTags {
		for i, x := range tags {
			if strings.HasPrefix(x, "_") || strings.HasPrefix(x, TagGateRejected) {
				tags = append(tags[:i:i], tags[i+1:]...)
				break
			}
		}
		if len(tags) >= memory.MaxTags {
			return tags
		}
	}
	return append(tags, t)
}

// removeTags returns tags without those for which drop is true.
func removeTags(tags []string, drop func(string) bool) []string {
	out := tags[:0:0]
	for _, t := range tags {
		if !drop(t) {
			out = append(out, t)
		}
	}
	return out
}
