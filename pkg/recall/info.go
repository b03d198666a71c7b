package recall

import (
	"math"
	"strings"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// The information prior: a memory that says little ("That's for sure!",
// "Hey, what's up?") matches many questions a little, through the generic
// meaning of its few words, and used to take the slots of memories that
// say something specific. Its score is scaled by a smooth function of how
// many informative terms its content has: distinct index terms (package
// lexical drops stopwords), conversational fillers counting a quarter.
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

// fillers are words of small talk: reactions, greetings, intensifiers. They
// are index terms (a search for "thanks" should find thanks) but carry
// little of what a memory is about. Held as their index terms (stemmed).
var fillers = termSet(`hey hi hello bye goodbye yeah yes yep yup nope ok okay sure thanks thank
	wow cool great awesome nice good glad lol haha oh ah um hmm totally definitely really absolutely
	indeed exactly right true agree amazing wonderful fantastic incredible lovely super fun glad
	happy hear sounds sound thing things stuff lot much well also still even maybe cheers congrats
	congratulations welcome appreciate care take see talk later soon day today`)

func termSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, t := range lexical.Terms(strings.Join(strings.Fields(words), " ")) {
		set[t] = true
	}
	return set
}

// informationPrior is m's information factor in (infoFloor, 1]: see the
// constants above.
func informationPrior(m memory.Memory) float64 {
	seen := map[string]bool{}
	n := 0.0
	for _, t := range lexical.Terms(m.Content) {
		if seen[t] {
			continue
		}
		seen[t] = true
		if fillers[t] {
			n += fillerWeight
		} else {
			n++
		}
	}
	return infoFloor + (1-infoFloor)*(1-math.Exp(-n/infoScale))
}
