package rules

import (
	"regexp"
	"strings"
)

// Clause-level state set by openings ("actually,", "from now on", "please").
const (
	flagInferred flag = 1 << (iota + 4) // "I think …": inferred confidence
	flagRequest                         // "can you always …": a request, not a question
	flagDrop                            // "maybe …", "I guess …": not a statement
)

// opening is a pattern for the start of a clause. It runs only when the
// clause's first word is in first and, if keywords is set, one of them occurs.
type opening struct {
	re       *regexp.Regexp
	first    map[string]bool
	keywords []string
	flag     flag
}

func (o *opening) applies(first, low string) bool {
	return o.first[first] && (o.keywords == nil || hasAny(low, o.keywords))
}

// prefixes are the openings stripped before rules match, and the gate that
// refuses hypotheticals and negated mentions.
type prefixes struct {
	openings []opening
	request  opening
	gate     opening
	fanOf    *regexp.Regexp
}

func newPrefixes() prefixes {
	return prefixes{
		openings: []opening{
			{re: compile(`^(?:i guess|i suppose|probably|maybe|perhaps|possibly|i might|might|not sure|idk|i'm not sure)\b`),
				first: setOf("i", "probably", "maybe", "perhaps", "possibly", "might", "not", "idk", "i'm"), flag: flagDrop},
			{re: compile(`^(?:actually|correction|to clarify|just to clarify|let me correct (?:that|myself)|scratch that|i stand corrected|i meant to say|i meant|what i meant (?:is|was)|to be clear)\b[\s,:!.—–-]*`),
				first: setOf("actually", "correction", "to", "just", "let", "scratch", "i", "what"), flag: flagCorrection},
			// "no" alone is too common: only "no," "nope." "wait -" open a correction.
			{re: compile(`^(?:no wait|no sorry|no|nope|nah|wait|sorry|oops|wrong|not quite|that's wrong|that's not right|that is wrong|that's incorrect|incorrect|no no)\s*[,:!.—–-]+[\s,:!.—–-]*`),
				first: setOf("no", "nope", "nah", "wait", "sorry", "oops", "wrong", "not", "that's", "that", "incorrect"), flag: flagCorrection},
			{re: compile(`^(?:from now on|going forward|moving forward|in the future|in future|henceforth|from here on(?: out)?|for future reference|for the future|for all future \w+|as a rule|in general|generally speaking)\b[\s,:]*`),
				first: setOf("from", "going", "moving", "in", "henceforth", "for", "as", "generally"), flag: flagDurable},
			{re: compile(`^(?:i think|i believe|i feel like|i reckon)(?: that)?\b[\s,]*`),
				first: setOf("i"), keywords: []string{"think", "believe", "feel like", "reckon"}, flag: flagInferred},
			{re: compile(`^(?:please )?(?:remember|keep in mind|note|don't forget|do not forget|for the record|fyi|just so you know|for your information|note to self|bear in mind|important)(?: that| this)?\b[\s,:—–-]*`),
				first: setOf("please", "remember", "keep", "note", "don't", "do", "for", "fyi", "just", "bear", "important"), flag: flagRemember},
			{re: compile(`^please\b[\s,]*`), first: setOf("please")},
			{re: compile(`^(?:and|but|also|so|plus|oh|ok|okay|alright|btw|by the way|hey|hi|well|then|anyway|anyways|one more thing|ps|p\.s\.|fwiw|honestly|frankly|basically|just|lastly|finally|additionally|oh yeah|yeah|yes|sure|cool|great|thanks|thank you|perfect|got it|oh and|and also|one last thing|also note)\b[\s,:!.—–-]*`),
				first: setOf("and", "but", "also", "so", "plus", "oh", "ok", "okay", "alright", "btw", "by", "hey", "hi",
					"well", "then", "anyway", "anyways", "one", "ps", "p", "fwiw", "honestly", "frankly", "basically",
					"just", "lastly", "finally", "additionally", "yeah", "yes", "sure", "cool", "great", "thanks",
					"thank", "perfect", "got")},
		},
		request: opening{
			re:    compile(`^((?:can|could|would|will) you (?:please )?|(?:i want|i'd like|i would like|i need) you to (?:please )?)(?:always|never|stop|start|remember|make sure|call me|don't ever|do not ever)\b`),
			first: setOf("can", "could", "would", "will", "i", "i'd"), keywords: []string{"you"}, flag: flagRequest,
		},
		gate: opening{
			re: compile(`^(?:if i were|if we were|if i had|if we had|if i was|suppose|supposing|imagine|hypothetically|what if|let's say|say that|assuming|assume|pretend|in theory|in a perfect world|i never said|i didn't say|i did not say|i'm not saying|i am not saying|not that i|it's not that|it is not that|i don't mean|i didn't mean|who said|nobody said|no one said|i don't know|i do not know|i don't think|i do not think|i don't care|i don't remember|i can't remember|i'm not|i am not|i wasn't|i don't use|i do not use|i don't have|i do not have|i wonder|i wish|if only|i hope|i heard|someone said|they said|he said|she said)\b`),
			first: setOf("if", "suppose", "supposing", "imagine", "hypothetically", "what", "let's", "say",
				"assuming", "assume", "pretend", "in", "i", "i'm", "not", "it's", "it", "who", "nobody", "no",
				"someone", "they", "he", "she"),
			keywords: []string{"if ", "suppose", "imagine", "hypothetically", "say", "assum", "pretend",
				"theory", "perfect world", "n't", "n’t", "not", "wonder", "wish", "hope", "heard"},
		},
		fanOf: compile(`^i(?:'m| am) not (?:a |an |much of a |the biggest )?(?:\w+ )?fan of `),
	}
}

// strip removes openings from low[pos:] and returns the new position and the
// flags they carry. flagDrop means an opening ruled the clause out.
func (p *prefixes) strip(low string, pos int, fl flag) (int, flag) {
	for range 6 {
		rest := low[pos:]
		first := firstWord(rest)
		if p.request.applies(first, rest) {
			if m := p.request.re.FindStringSubmatchIndex(rest); m != nil {
				// Keep the directive ("always …"): drop only "can you (please)".
				pos += m[3]
				fl |= flagRequest
				continue
			}
		}
		n := 0
		for i := range p.openings {
			o := &p.openings[i]
			if !o.applies(first, rest) {
				continue
			}
			loc := o.re.FindStringIndex(rest)
			if loc == nil {
				continue
			}
			if o.flag == flagDrop {
				return pos, fl | flagDrop
			}
			if o.flag == flagRemember && strings.HasPrefix(rest[loc[1]:], "to ") {
				return pos, fl // "remember to …" is an instruction
			}
			n = loc[1]
			fl |= o.flag
			break
		}
		if n == 0 {
			return pos, fl
		}
		pos += n
	}
	return pos, fl
}

// refused reports a hypothetical or a negated mention ("I never said …").
func (p *prefixes) refused(low string) bool {
	return p.gate.applies(firstWord(low), low) && p.gate.re.MatchString(low) && !p.fanOf.MatchString(low)
}
