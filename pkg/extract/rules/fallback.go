package rules

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// fallback handles clauses that only an opening made capturable: "actually,
// the deadline is Friday", "remember that staging resets nightly", "from now
// on, answer in French", "Rule: …". Each needs a clear subject or an
// instruction, so chit-chat after "no," or "remember," stays out.
func fallback(orig, low string, fl flag) (string, draft, bool) {
	content := thirdPerson(orig)
	imperative := instruction(low)
	subject := copulaSubject(low)
	switch {
	case fl&flagCorrection != 0:
		if t, ok := itsFor(low); ok && !fillerPhrases[low] {
			// "No, it's port 8443 for the admin API."
			return RuleCorrection, draft{typ: memory.TypeFact, class: classStatement, content: content, prefix: "fact",
				topic: t, payload: low, minContent: 2}, true
		}
		if fillerPhrases[low] || !imperative && (subject == "" || !concreteSubject(low)) {
			return "", draft{}, false
		}
		d := draft{typ: memory.TypeFact, class: classStatement, content: content, prefix: "fact",
			topic: subject, payload: low, minContent: 2}
		if imperative {
			// An instruction to the agent: routed like "always …" directives.
			d.typ, d.class, d.prefix, d.topic = memory.TypeDecision, classDirective, "decision", decisionTopic(low)
		}
		return RuleCorrection, d, true
	case fl&flagPolicy != 0:
		return RuleRequired, draft{typ: memory.TypePolicy, class: classStatement, content: content,
			prefix: "policy", topic: low, payload: low, minContent: 2}, true
	case fl&flagDurable != 0:
		if !imperative && !concreteSubject(low) && !hasAny(low, []string{" should ", " must ", " need to ", " have to ", " are to ", " is to "}) {
			return "", draft{}, false
		}
		return RuleFromNowOn, draft{typ: memory.TypePreference, class: classDirective, content: orig,
			prefix: "preference", topic: low, payload: low, minContent: 2}, true
	case fl&flagRemember != 0:
		if !concreteSubject(low) || vocative(orig) {
			return "", draft{}, false
		}
		d := draft{typ: memory.TypeFact, class: classStatement, content: content, prefix: "fact",
			topic: low, payload: low}
		if subject != "" {
			d.topic = subject
		}
		return RuleRemember, d, true
	}
	return "", draft{}, false
}

// instruction: the clause opens with an imperative verb ("use pnpm").
func instruction(low string) bool {
	w, rest := splitWord(low)
	w = normApos(w)
	switch w {
	case "never", "always", "don't", "dont":
		return !notImperative(rest)
	case "do", "make", "let", "go", "keep", "be", "get", "put", "leave":
		// "do it", "make it work", "keep going": too vague without context.
		return !vagueObjects[firstWord(rest)]
	}
	return imperativeVerbs[w] && !notImperative(low)
}

// concreteSubject: the clause is about a named thing ("the deadline", "our
// API", "my birthday", "Postgres") rather than "it", "that" or "anything".
func concreteSubject(low string) bool {
	w := normApos(firstWord(low))
	switch w {
	case "the", "our", "my", "this", "these", "those", "we", "we're", "we've", "i", "i'm", "i've",
		"all", "every", "each", "no", "both":
		return w != "i" && w != "i'm" && w != "i've" || !narrativeSelf(low)
	}
	return false
}

// narrativeSelf: "I haven't tried it", "I'm currently participating" tell
// a story; "I'm vegan", "I'm in Berlin now" state a fact.
func narrativeSelf(low string) bool {
	_, rest := splitWord(low)
	w := firstWord(rest)
	return strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "n't") ||
		strings.HasSuffix(w, "n’t") || habitBlock[w] || w == "just" || w == "currently" || w == "still" ||
		w == "not" || w == "also" || w == "really"
}

// vocative: "Remember Jon, just do it" addresses a person.
func vocative(orig string) bool {
	w, _ := splitWord(orig)
	return strings.HasSuffix(w, ",") && startsUpper(w)
}

var vagueObjects = setOf("it", "that", "this", "them", "me", "us", "sure", "up", "on", "going",
	"doing", "in", "out", "off", "away", "back", "over", "something", "anything", "everything", "")

// itsFor reads "it's port 8443 for the admin API": a value and the named
// thing it belongs to; the key comes from the thing and the value's noun.
func itsFor(low string) (string, bool) {
	rest := ""
	for _, p := range []string{"it's ", "it’s ", "it is "} {
		if strings.HasPrefix(low, p) {
			rest = low[len(p):]
		}
	}
	if rest == "" {
		return "", false
	}
	for _, sep := range []string{" for the ", " of the ", " on the ", " in the "} {
		if i := strings.Index(rest, sep); i > 0 {
			thing := slug(rest[i+len(sep):], 3)
			if thing == "" {
				return "", false
			}
			return thing + "-" + slug(firstWord(rest[:i]), 1), true
		}
	}
	return "", false
}
