package recall

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A question about someone is answered mostly by what they said: "what is
// Ann's favourite book?" by Ann's turns, not by the turns that address her
// ("Wow, Ann, what a book!"). When a question names some, not all, of the
// speakers of the transcript memories among its candidates, the turns of
// the other speakers are scaled by otherSpeakerFactor. A question naming no
// speaker, or every one, is left alone. On LoCoMo dev (built-in model), a
// factor of 0.85 / 0.7 / 0.55 took recall_any@10 from 0.825 to 0.837 /
// 0.838 / 0.829 and nDCG@10 from 0.617 to 0.630 / 0.641 / 0.636 (96% of the
// evidence of a question naming one speaker is that speaker's, against 73%
// of the top 10 before).
//
// A question in the first person ("what did I say about…", "my
// preference") is about the user, one in the second person ("what did you
// suggest") about the assistant: when the query names no speaker, these
// count as naming every speaker with that role: the one written as the
// role ("user: …", "assistant: …", how package extract writes a message
// whose agent gave no name), and a named one whose turns carry the role's
// tag (memory.RoleTag: "Ann: …" tagged role:user).
const otherSpeakerFactor = 0.7

// otherPersonFactor scales the other role's turns for a question in the
// first or second person: milder than for a named speaker, since the
// user's question is often answered by the pair of turns, the user's and
// the assistant's reply. On DevChat's classes (named speakers, built-in
// model) 0.7 / 0.85 / 0.95 took nDCG@10 from 0.729 to 0.741 / 0.740 /
// 0.732 and recall_all@10 from 0.893 to 0.881 / 0.893 / 0.889; a question
// in the plural ("how did we fix it?") asks about both and focuses on
// neither.
const otherPersonFactor = 0.85

// Roles as transcript memories name a speaker without a name.
const (
	userSpeaker      = "user"
	assistantSpeaker = "assistant"
)

var (
	firstPerson  = wordSet(`i i'm i've i'd i'll me my mine myself`)
	secondPerson = wordSet(`you you're you've you'd you'll your yours yourself`)
	// jointPerson asks about both: "how did we fix it?"
	jointPerson = wordSet(`we we're we've we'd we'll us our ours ourselves`)
)

// maxSpeakerChars bounds the "speaker: " prefix of a transcript memory's
// content (see package extract): a longer prefix is not a name.
const maxSpeakerChars = 48

// speakerOf is the speaker of a transcript memory ("Ann" for "Ann: hi"),
// "" for any other memory.
func speakerOf(m *memory.Memory) string {
	if !m.Transcript() {
		return ""
	}
	head := m.Content
	if len(head) > maxSpeakerChars+2 {
		head = head[:maxSpeakerChars+2]
	}
	i := strings.Index(head, ": ")
	if i <= 0 || strings.ContainsAny(head[:i], "\n\r") {
		return ""
	}
	return head[:i]
}

// saidText is what a memory says: a transcript memory's content without
// its "speaker: " prefix, any other memory's content.
func saidText(m *memory.Memory) string {
	if sp := speakerOf(m); sp != "" {
		return m.Content[len(sp)+2:]
	}
	return m.Content
}

// speakerFocus holds the speakers a query names among those of its
// candidates; nil when it names none or all of them.
type speakerFocus struct {
	named map[string]bool
	other float64 // the factor of the other speakers' turns
}

// newSpeakerFocus finds which speakers of the candidates the query names:
// a speaker is named when the query holds the first word of the speaker's
// name as a word of its own ("Ann", "Ann's"), in any case.
func newSpeakerFocus(query string, hits []hit) *speakerFocus {
	words := queryWords(query)
	speakers := map[string]bool{}
	roles := map[string]string{}
	for _, h := range hits {
		s := speakerOf(h.mem)
		if s == "" {
			continue
		}
		speakers[s] = false
		if r := h.mem.SpeakerRole(); r != "" {
			roles[s] = r
		} else if s == userSpeaker || s == assistantSpeaker {
			roles[s] = s
		}
	}
	named, other := 0, otherSpeakerFactor
	for s := range speakers {
		first, _, _ := strings.Cut(s, " ")
		if len([]rune(first)) > 1 && words[strings.ToLower(first)] {
			speakers[s] = true
			named++
		}
	}
	if named == 0 {
		named, other = byPerson(words, speakers, roles), otherPersonFactor
	}
	if named == 0 || named == len(speakers) {
		return nil
	}
	f := &speakerFocus{named: map[string]bool{}, other: other}
	for s, ok := range speakers {
		if ok {
			f.named[s] = true
		}
	}
	return f
}

// byPerson marks the speakers with the role a first- or second-person
// query is about (not both), and returns how many it marked.
func byPerson(words map[string]bool, speakers map[string]bool, roles map[string]string) int {
	first, second := false, false
	for w := range words {
		first = first || firstPerson[w] || jointPerson[w]
		second = second || secondPerson[w] || jointPerson[w]
	}
	role := ""
	switch {
	case first && !second:
		role = userSpeaker
	case second && !first:
		role = assistantSpeaker
	default:
		return 0
	}
	marked := 0
	for s := range speakers {
		if roles[s] == role {
			speakers[s] = true
			marked++
		}
	}
	return marked
}

// factor is what m's score is multiplied by: 1 unless m is a turn of a
// speaker the query does not name while it names another.
func (f *speakerFocus) factor(m *memory.Memory) float64 {
	if f == nil {
		return 1
	}
	s := speakerOf(m)
	if s == "" || f.named[s] {
		return 1
	}
	return f.other
}

// queryWords are the query's words, lowercased, a possessive "'s" cut.
func queryWords(query string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '-'
	}) {
		w = curly.Replace(strings.ToLower(w))
		for _, suffix := range []string{"'s", "'"} {
			if strings.HasSuffix(w, suffix) && utf8.RuneCountInString(w) > len(suffix) {
				w = strings.TrimSuffix(w, suffix)
				break
			}
		}
		out[w] = true
	}
	return out
}
