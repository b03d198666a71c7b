package recall

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A question asking what or which kind of named thing ("What city did Tim
// suggest for the trip?", "Which book was John reading?") is answered by a
// turn that names one — "Edinburgh would be great for a magical vibe" —
// while the turns that repeat its words ("We're planning a team trip next
// month") usually do not. Such a question multiplies the score of a memory
// naming something by 1 + nameBoost: a capitalised word inside a sentence
// that is neither one of the question's words nor a speaker of the
// conversation (they are named in every other turn), nor a weekday, a month
// or "I". On LoCoMo dev (built-in model, turn events) recall_any@10 0.8711
// → 0.8776, nDCG@10 0.6904 → 0.6952 (open-domain recall_all@10 0.409 →
// 0.432, multi-hop 0.225 → 0.239); boosts of 0.05, 0.1 and 0.3 did 0.8711 /
// 0.6922, 0.8763 / 0.6938 and 0.8763 / 0.6938. DevChat and its classes ask
// no such questions and score as before. "Where" and "who" questions were
// tried too and left out: in a technical conversation "where does it run?"
// is answered by "eu-west-1", and a capitalised word there is a product or
// a tool (classes multi-entity nDCG@10 0.723 → 0.682).
const nameBoost = 0.2

var asksNamePattern = regexp.MustCompile(`(?i)^\s*(?:what|which)\s+(?:city|cities|country|countries|state|states|town|towns|place|places|restaurant|restaurants|cafe|band|bands|artist|artists|singer|singers|author|authors|book|books|novel|novels|movie|movies|film|films|show|shows|series|song|songs|album|albums|game|games|team|teams|company|companies|brand|brands|store|stores|shop|shops|school|schools|university|universities|college|colleges|language|languages|breed|park|parks|museum|museums|beach|beaches|island|islands|destination|destinations|location|locations|neighbou?rhood|street|festival|festivals|concert|concerts)\b`)

// asksName reports whether query asks what or which kind of named thing
// (a place, a title, an organisation, a language).
func asksName(query string) bool { return asksNamePattern.MatchString(query) }

// notNames are capitalised words that name nothing a question asks for.
var notNames = map[string]bool{"i": true, "ok": true, "okay": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true}

// nameFocus tells, for a question asking for a name, which memories name
// something; nil for any other question.
type nameFocus struct {
	query    map[string]bool // the question's words, lower-cased
	speakers map[string]bool // the speakers of the candidates
}

// newNameFocus returns the focus of query over hits, nil when query does
// not ask for a name.
func newNameFocus(query string, hits []hit) *nameFocus {
	if !asksName(query) {
		return nil
	}
	f := &nameFocus{query: queryWords(query), speakers: map[string]bool{}}
	for _, h := range hits {
		if s := speakerOf(h.mem); s != "" {
			f.speakers[s] = true
		}
	}
	return f
}

// factor is what m's score is multiplied by: 1 + nameBoost when m names
// something the question may ask for, else 1.
func (f *nameFocus) factor(m *memory.Memory) float64 {
	if f == nil || !f.names(saidText(m)) {
		return 1
	}
	return 1 + nameBoost
}

// names reports whether text holds a capitalised word inside a sentence
// that is none of the question's words, the speakers or notNames.
func (f *nameFocus) names(text string) bool {
	start := true
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			switch r {
			case '.', '!', '?', ':', ';', '\n', '"', '“', '(':
				start = true
			}
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r2) && r2 != '\'' && r2 != '’' && r2 != '-' {
				break
			}
			j += n2
		}
		word := text[i:j]
		first := start
		start, i = false, j
		if first || !unicode.IsUpper(r) || utf8.RuneCountInString(word) < 2 {
			continue
		}
		lw := strings.ToLower(word)
		if strings.HasPrefix(lw, "i'") || strings.HasPrefix(lw, "i’") || notNames[lw] || f.query[lw] || f.speakers[word] {
			continue
		}
		return true
	}
	return false
}
