package recall

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// The information prior: a memory that says little ("That's for sure!",
// "Hey, what's up?") matches many questions a little, through the generic
// meaning of its few words, and used to take the slots of memories that
// say something specific. Its score is scaled by a smooth function of how
// many informative terms its content has: distinct words that are not
// stopwords (package lexical's), conversational fillers counting a quarter.
// There is no length cut-off: one informative term already lifts the
// factor well above its floor, and from about eight terms on it is 1.
const (
	// infoFloor is the factor of a memory without an informative term.
	// On LoCoMo dev (built-in model, no LLM) a floor of 0.8 / 0.7 / 0.6
	// took recall_any@10 from 0.7934 to 0.7934 / 0.7947 / 0.7961 and
	// nDCG@10 from 0.5995 to 0.6016 / 0.6037 / 0.6053, and halved, then
	// more, the low-information turns in the top 10; 0.7 keeps a terse
	// instruction ("Use pnpm.", two terms: 0.85) from losing much.
	infoFloor = 0.7
	// infoScale is how many informative terms take the factor 63% of the
	// way from the floor to 1.
	infoScale = 3.0
	// fillerWeight is what a filler term counts for.
	fillerWeight = 0.25
)

// infoEnough is how many informative terms make the factor 1 within
// half a percent; counting stops there.
const infoEnough = 12

// fillers are words of small talk: reactions, greetings, intensifiers. They
// are index terms (a search for "thanks" should find thanks) but carry
// little of what a memory is about. Lowercase, unstemmed, as
// informativeTerms compares them.
var fillers = wordSet(`hey hi hello bye goodbye yeah yes yep yup nope ok okay sure thanks thank thx
	wow cool great awesome nice good glad lol haha oh ah um hmm totally definitely really absolutely
	indeed exactly right true agree amazing wonderful fantastic incredible lovely super fun
	happy hear sounds sound thing things stuff lot lots much well also still even maybe cheers congrats
	congratulations welcome appreciate care take see talk later soon day today`)

func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// informationPrior is m's information factor in [infoFloor, 1]: see the
// constants above.
func informationPrior(m *memory.Memory) float64 {
	n := informativeTerms(m.Content)
	return infoFloor + (1-infoFloor)*(1-math.Exp(-n/infoScale))
}

// informativeTerms counts the distinct words of text that are neither
// stopwords (lexical.IsStopword) nor single Latin letters, a filler
// counting fillerWeight, up to infoEnough. It runs for every ranked
// candidate, so it splits words the cheap way (letters, digits and
// apostrophes, any non-ASCII byte counting as a letter) without stemming:
// the count only has to tell a line of small talk from a statement.
func informativeTerms(text string) float64 {
	var buf [64]byte
	var seen [2 * infoEnough]uint64
	nseen := 0
	n := 0.0
	for i := 0; i < len(text) && n < infoEnough; {
		if !isInfoByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isInfoByte(text[j]) {
			j++
		}
		word := text[i:j]
		i = j
		if len(word) > len(buf) {
			continue // a hash or a blob, not a word
		}
		w := buf[:len(word)]
		ascii := true
		for k := range len(word) {
			c := word[k]
			if c >= utf8.RuneSelf {
				ascii = false
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			w[k] = c
		}
		if !ascii {
			w = []byte(curly.Replace(strings.ToLower(string(w))))
		}
		w = bytes.Trim(w, "'")
		if len(w) == 0 || ascii && len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' || lexical.IsStopword(string(w)) {
			continue
		}
		h := fnv64(w)
		if slices.Contains(seen[:nseen], h) {
			continue
		}
		if nseen < len(seen) {
			seen[nseen] = h
			nseen++
		}
		if fillers[string(w)] {
			n += fillerWeight
		} else {
			n++
		}
	}
	return min(n, infoEnough)
}

// curly straightens apostrophes, as package lexical does.
var curly = strings.NewReplacer("\u2019", "'", "\u02bc", "'")

// isInfoByte reports the bytes informativeTerms reads as part of a word.
func isInfoByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '\'' || c >= utf8.RuneSelf
}

// fnv64 is FNV-1a of b.
func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
