package extract

import (
	"github.com/recollect-dev/recollect/pkg/alias"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// producerAlias names the alias rules in metrics and fact messages.
const producerAlias = "alias"

// aliasImportance is low: an alias expands queries; it is not a fact to
// put in a prompt.
const aliasImportance = 0.1

// aliases are the alias memories a message states (see pkg/alias): one
// entity memory per (subject, name, word), its id from those alone, so
// the same alias said again, or the message redelivered, is one memory
// (reinforced), and a subject purge erases it with the subject's other
// memories — and, as derived from the message's transcript memory (id
// from), with that message when it has no subject of its own. text is the
// message as its transcript memory keeps it.
func (x *Extractor) aliases(o *origin, text, from string) []memory.FactMessage {
	var out []memory.FactMessage
	for _, a := range alias.Find(text) {
		key := alias.Key(a)
		fm, ok := x.build(o, candidate{
			key: key, content: alias.Content(a, ""), evidence: cutRunes(text, 500),
			tags: []string{alias.Tag}, domain: domains.Default,
			typ: memory.TypeEntity, importance: aliasImportance,
			confidence: memory.ConfidenceUnknown, rule: producerAlias, producer: producerAlias,
			id: memory.DeterministicID(o.tenant, o.namespace, "alias", o.subject, key),
		})
		if ok {
			fm.Memory.DerivedFrom = []string{from}
			out = append(out, fm)
		}
	}
	return out
}
