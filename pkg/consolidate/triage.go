package consolidate

import (
	"context"
	"regexp"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// triage is 003 §2.3: buffer memories older than TriageMinAge, not
// distilled, ephemeral or triaged before, are promoted to working or kept
// (tagged _triaged so they are not asked about again). At llm-level off
// the heuristic decides everything; at auto it decides the clear cases and
// the LLM the rest; at full the LLM decides everything. A failed LLM call
// leaves its memories untriaged for the next epoch.
func (r *run) triage(ctx context.Context) {
	var unsure []*memory.Memory
	lvl := r.c.level()
	r.each(func(m *memory.Memory) {
		if !r.triageable(m) {
			return
		}
		verdict, why := triageHeuristic(m)
		switch {
		case stayInBuffer(m):
			r.keepTriaged(m, why, DecidedByRule, "")
		case lvl == llm.LevelFull, lvl == llm.LevelAuto && verdict == triageUnsure:
			unsure = append(unsure, m)
		case verdict == triagePromote:
			r.promoteTriaged(m, false, why, DecidedByRule, "")
		default:
			r.keepTriaged(m, why, DecidedByRule, "")
		}
	})
	for i, calls := 0, 0; i < len(unsure) && calls < r.rules.TriageMaxCalls; i, calls = i+r.rules.TriageBatch, calls+1 {
		r.triageLLM(ctx, unsure[i:min(i+r.rules.TriageBatch, len(unsure))])
	}
}

func (r *run) triageable(m *memory.Memory) bool {
	return active(m) && r.mutable(m) && m.Layer == memory.LayerBuffer && r.now.Sub(m.CreatedAt) >= r.rules.TriageMinAge &&
		!hasTag(m, TagTriaged) && !hasTag(m, TagDistilled) && !hasTag(m, TagEphemeral)
}

func (r *run) promoteTriaged(m *memory.Memory, procedural bool, why, decider, model string) {
	r.change(m, PhaseTriage, "promote", why, decider, model, func(m *memory.Memory) {
		m.Layer = memory.LayerWorking
		if procedural {
			m.Kind = memory.KindProcedural
		}
	})
	r.stats.Triaged++
	r.stats.Promoted++
}

func (r *run) keepTriaged(m *memory.Memory, why, decider, model string) {
	r.change(m, PhaseTriage, "keep", why, decider, model, func(m *memory.Memory) { m.Tags = addTag(m.Tags, TagTriaged) })
	r.stats.Triaged++
}

// triageLLM asks the gate tier about one batch.
func (r *run) triageLLM(ctx context.Context, batch []*memory.Memory) {
	r.decideBatch(ctx, "triage", llm.TierGate, triageSystem, batch, nil, func(m *memory.Memory, d decision, model string) {
		switch strings.ToLower(d.Action) {
		case "promote":
			r.promoteTriaged(m, d.Procedural, "the triage model promoted it", DecidedByLLM, model)
		case "keep":
			r.keepTriaged(m, "the triage model kept it in the buffer", DecidedByLLM, model)
		}
	})
}

// stayInBuffer reports an explicit episode or a session note: 003 keeps
// episodes in the buffer (distillation reads the notes there), whatever
// the LLM level; an explicit one is never archived by a policy either.
func stayInBuffer(m *memory.Memory) bool {
	return sessionNote(m) || m.Explicit() && (m.Kind == memory.KindEpisodic || m.Type == memory.TypeEpisode)
}

type triageVerdict int

const (
	triageUnsure triageVerdict = iota
	triagePromote
	triageKeep
)

var (
	correctionRe = regexp.MustCompile(`(?i)\b(actually|correction|no longer|not anymore|instead of|switched (to|from)|changed (to|from)|moved (to|from)|from now on|now (use|uses|prefer|prefers))\b`)
	constraintRe = regexp.MustCompile(`(?i)\b(always|never|must|must not|mustn't|do not|don't|should not|shouldn't|required|requires|only ever|make sure|avoid)\b`)
	decisionRe   = regexp.MustCompile(`(?i)\b(decided|decision|we chose|we picked|going with|settled on|agreed to|because)\b`)
	preferRe     = regexp.MustCompile(`(?i)\b(prefer|prefers|preferred|likes?|loves?|hates?|dislikes?|favou?rite|my name is|i am|i'm a|i work|lives? in|allergic)\b`)
)

// triageHeuristic is the no-LLM triage (003 §7's off mode): what the user
// stated on purpose, corrections, constraints, decisions and preferences
// are durable; transcripts and one-off episodes stay in the buffer; the
// rest is unsure (kept at off, asked about at auto).
func triageHeuristic(m *memory.Memory) (triageVerdict, string) {
	switch {
	case m.Kind == memory.KindEpisodic || m.Type == memory.TypeEpisode || sessionNote(m):
		return triageKeep, "one-off episode"
	case m.Explicit():
		return triagePromote, "explicit memory"
	case strings.HasPrefix(m.Key, "transcript") || hasTag(m, "transcript"):
		return triageKeep, "transcript"
	case m.Type == memory.TypePolicy || m.Type == memory.TypePitfall || hasTag(m, TagLesson):
		return triagePromote, "constraint or lesson"
	case m.Type == memory.TypeDecision || m.Type == memory.TypePreference:
		return triagePromote, string(m.Type)
	case m.Type == memory.TypeWorkflow || m.Type == memory.TypeProcedure || m.Kind == memory.KindProcedural:
		return triagePromote, "procedure"
	case correctionRe.MatchString(m.Content):
		return triagePromote, "correction"
	case constraintRe.MatchString(m.Content):
		return triagePromote, "constraint"
	case decisionRe.MatchString(m.Content):
		return triagePromote, "decision"
	case preferRe.MatchString(m.Content):
		return triagePromote, "preference"
	}
	return triageUnsure, "no durable signal"
}
