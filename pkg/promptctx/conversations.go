package promptctx

import (
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/scope"
)

// conversationLimit is the section limit of "From Earlier Conversations":
// its own budget, or kept empty when it is off.
func (a *Assembler) conversationLimit() int {
	if a.cfg.ConversationTokens <= 0 || a.cfg.ConversationMax <= 0 {
		return -1
	}
	return a.cfg.ConversationTokens
}

// conversations quotes the transcript memories recall ranked highest,
// above the relevance floor, with the day they were said: context from
// earlier conversations, kept apart from the facts (never in the layers
// above). Quarantined, archived and superseded ones are never quoted.
func (as *assembly) conversations(recalled []recall.Result) {
	a := as.a
	n := 0
	for i := range recalled {
		r := &recalled[i]
		m := &r.Memory
		if n >= a.cfg.ConversationMax || as.full(secConversations) {
			return
		}
		if !m.Transcript() || m.Archived || m.Superseded() || m.Quarantined() || r.Relevance < a.cfg.ConversationMinRelevance ||
			scope.FitOf(m.Scope, as.file) == scope.Out {
			continue
		}
		text := "- " + flatten(m.Content) + "\n"
		if at := m.SaidAt(); !at.IsZero() {
			text = "- (" + at.UTC().Format("2006-01-02") + ") " + flatten(m.Content) + "\n"
		}
		if as.take(secConversations, "", text, Included{Score: r.Score, Relevance: r.Relevance, Memory: *m}) {
			n++
		}
	}
}
