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
// speaker, or every one, is left alone.
const otherSpeakerFactor = 0.7

// maxSpeakerChars bounds the "speaker: " prefix of a transcript memory's
// content (see package extract): a longer prefix is not a name.
const maxSpeakerChars = 48

// speakerOf is the speaker of a transcript memory ("Ann" for "Ann: hi"),
// "" for any other memory.
func speakerOf(m memory.Memory) string {
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

// speakerFocus holds the speakers a query names among those of its
// candidates; nil when it names none or all of them.
type speakerFocus map[string]bool

// newSpeakerFocus finds which speakers of the candidates the query names:
// a speaker is named when the query holds the first word of the speaker's
// name as a word of its own ("Ann", "Ann's"), in any case.
func newSpeakerFocus(query string, hits []hit) speakerFocus {
	words := queryWords(query)
	speakers := map[string]bool{}
	for _, h := range hits {
		if s := speakerOf(h.mem); s != "" {
			speakers[s] = false
		}
	}
	named := 0
	for s := range speakers {
		first, _, _ := strings.Cut(s, " ")
		if len([]rune(first)) > 1 && words[strings.ToLower(first)] {
			speakers[s] = true
			named++
		}
	}
	if named == 0 || named == len(speakers) {
		return nil
	}
	f := speakerFocus{}
	for s, ok := range speakers {
		if ok {
			f[s] = true
		}
	}
	return f
}

// factor is what m's score is multiplied by: 1 unless m is a turn of a
// speaker the query does not name while it names another.
func (f speakerFocus) factor(m memory.Memory) float64 {
	if f == nil {
		return 1
	}
	s := speakerOf(m)
	if s == "" || f[s] {
		return 1
	}
	return otherSpeakerFactor
}

// queryWords are the query's words, lowercased, a possessive "'s" cut.
func queryWords(query string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '-'
	}) {
		w = strings.ToLower(w)
		for _, suffix := range []string{"'s", "’s", "'", "’"} {
			if strings.HasSuffix(w, suffix) && utf8.RuneCountInString(w) > len(suffix) {
				w = strings.TrimSuffix(w, suffix)
				break
			}
		}
		out[w] = true
	}
	return out
}
