package consolidate

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// gate is 003 §2.5: working memories reinforced enough (or old enough and
// used) and important enough are candidates for core. The LLM decides with
// the whitelist of 003 (lesson, identity, constraint, decision rationale);
// without one, or for the clear cases at auto, the heuristic below does.
// A rejection escalates: gate-rejected (retried after GateCooldown1
// epochs), gate-rejected-2 (after GateCooldown2), gate-rejected-final
// (never). The epoch of a rejection is kept in the tag
// ("gate-rejected@<seq>"), so idle time does not count. Core is never
// deleted.
func (r *run) gate(ctx context.Context) {
	var cands []*memory.Memory
	r.each(func(m *memory.Memory) {
		if r.gateCandidate(m) {
			cands = append(cands, m)
		}
	})
	lvl := r.c.level()
	var ask []*memory.Memory
	for _, m := range cands {
		v, why := gateHeuristic(m)
		switch {
		case lvl == llm.LevelFull, lvl == llm.LevelAuto && v == gateUnsure:
			ask = append(ask, m)
		case v == gateApprove:
			r.approve(m, why, DecidedByRule, "")
		default:
			r.reject(m, why, DecidedByRule, "")
		}
	}
	for i, calls := 0, 0; i < len(ask) && calls < r.rules.GateMaxCalls; i, calls = i+r.rules.GateBatch, calls+1 {
		r.gateLLM(ctx, ask[i:min(i+r.rules.GateBatch, len(ask))])
	}
}

// gateCandidate applies 003's candidate rule and the cooldowns.
func (r *run) gateCandidate(m *memory.Memory) bool {
	if !active(m) || !r.mutable(m) || m.Layer != memory.LayerWorking || m.Importance < r.rules.PromoteMinImp {
		return false
	}
	if sessionNote(m) || hasTag(m, TagEphemeral) || hasTag(m, TagAutoDistilled) || hasTag(m, TagDistilled) {
		return false
	}
	if b, ok := r.before[m.ID]; ok && b.Layer != m.Layer {
		return false // it moved this epoch; the gate sees it next time
	}
	score := Reinforcement(m)
	if score < r.rules.PromoteThreshold && (r.now.Sub(m.CreatedAt) <= r.rules.WorkingAgeGate || score <= 0) {
		return false
	}
	level, at := gateRejections(m)
	switch level {
	case 1:
		return r.seq-at >= int64(r.rules.GateCooldown1)
	case 2:
		return r.seq-at >= int64(r.rules.GateCooldown2)
	case 3:
		return false // gate-rejected-final never retries
	}
	return true
}

// gateRejections reads the rejection tags: how many rejections and the
// epoch of the last.
func gateRejections(m *memory.Memory) (int, int64) {
	level, at := 0, int64(0)
	for _, t := range m.Tags {
		name, epoch, _ := strings.Cut(t, "@")
		n, _ := strconv.ParseInt(epoch, 10, 64)
		switch name {
		case TagGateRejected:
			level, at = max(level, 1), n
		case TagGateRejected2:
			level, at = max(level, 2), n
		case TagGateFinal:
			return 3, n
		}
	}
	return level, at
}

func (r *run) approve(m *memory.Memory, why, decider, model string) {
	r.change(m, PhaseGate, "promote", why, decider, model, func(m *memory.Memory) {
		m.Layer = memory.LayerCore
		m.Tags = removeTags(m.Tags, func(t string) bool { return strings.HasPrefix(t, TagGateRejected) })
	})
	r.stats.Core++
}

func (r *run) reject(m *memory.Memory, why, decider, model string) {
	level, _ := gateRejections(m)
	next := [...]string{TagGateRejected, TagGateRejected2, TagGateFinal, TagGateFinal}[level]
	r.change(m, PhaseGate, "reject", why, decider, model, func(m *memory.Memory) {
		m.Tags = removeTags(m.Tags, func(t string) bool { return strings.HasPrefix(t, TagGateRejected) })
		m.Tags = addTag(m.Tags, next+"@"+strconv.FormatInt(r.seq, 10))
	})
	r.stats.Rejected++
}

func (r *run) gateLLM(ctx context.Context, batch []*memory.Memory) {
	note := func(m *memory.Memory) string {
		var n string
		if m.AccessCount >= 30 {
			n += fmt.Sprintf(" [recalled %d times]", m.AccessCount)
		}
		if m.RepetitionCount >= 2 {
			n += fmt.Sprintf(" [restated %d times]", m.RepetitionCount)
		}
		return n
	}
	r.decideBatch(ctx, "gate", llm.TierGate, gateSystem, batch, note, func(m *memory.Memory, d decision, model string) {
		why := strings.TrimSpace(d.Category + ": " + d.Reason)
		switch strings.ToLower(d.Decision) {
		case "approve":
			r.approve(m, why, DecidedByLLM, model)
		case "reject":
			r.reject(m, why, DecidedByLLM, model)
		}
	})
}

type gateVerdict int

const (
	gateUnsure gateVerdict = iota
	gateApprove
	gateReject
)

var temporaryRe = regexp.MustCompile(`(?i)\b(for now|temporar(y|ily)|this (week|sprint|month|session)|until (tomorrow|next)|today|tonight|right now|at the moment)\b`)

// gateHeuristic is the gate without an LLM: 003's whitelist read from the
// memory's type and tags. Temporary statements and plain facts stay in
// working.
func gateHeuristic(m *memory.Memory) (gateVerdict, string) {
	switch {
	case temporaryRe.MatchString(m.Content):
		return gateReject, "temporary"
	case m.Kind == memory.KindEpisodic || m.Type == memory.TypeEpisode:
		return gateReject, "episode"
	case hasTag(m, TagLesson) || m.Type == memory.TypePitfall:
		return gateApprove, "lesson"
	case m.Type == memory.TypePolicy:
		return gateApprove, "constraint"
	case m.Type == memory.TypePreference || m.Type == memory.TypeStyle:
		return gateApprove, "identity"
	case m.Type == memory.TypeDecision && decisionRe.MatchString(m.Content):
		return gateApprove, "decision rationale"
	case m.Type == memory.TypeFact || m.Type == memory.TypeArtifact || m.Type == memory.TypeEntity:
		if preferRe.MatchString(m.Content) && m.Subject != "" && m.Subject != memory.LoreSubject {
			return gateApprove, "identity"
		}
		if constraintRe.MatchString(m.Content) {
			return gateUnsure, "maybe a constraint"
		}
		return gateReject, "a fact, not lesson, identity, constraint or decision"
	}
	return gateUnsure, "no clear category"
}
