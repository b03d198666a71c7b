package filter

import (
	"regexp"
	"strings"
)

// phrase is an instruction aimed at the model itself. It runs only when one
// of its trigger words (and one of its also words) occurs in the stream; ok,
// when set, looks at the submatches (and the whole stream) to tell an
// attack from an ordinary sentence that shares its words.
type phrase struct {
	name      string
	triggers  []string // one of these words must occur
	also      []string // and, if set, one of these
	re        *regexp.Regexp
	ok        func(m []string, s string) bool
	negatable bool // "never reveal your system prompt" is a rule, not an attack
}

// wordRE is one word of the stream (not punctuation).
const wordRE = `[\p{L}0-9']+`

// Word sets the phrases consult.
var (
	// modelRef words point at the model's own instructions.
	modelRef = setOf("your", "yours", "previous", "prior", "above", "earlier", "preceding", "foregoing",
		"original", "initial", "system", "safety", "developer", "hidden", "openai", "anthropic", "ethical",
		"moral", "programmed", "preprogrammed", "core", "built-in", "internal")
	// weakRef are the modelRef words that still point at the model before a
	// generic noun ("reset the system settings" is ordinary).
	weakRef = setOf("your", "yours", "previous", "prior", "above", "earlier", "preceding", "foregoing",
		"original", "initial", "safety", "ethical", "moral", "programmed", "preprogrammed", "openai", "anthropic", "hidden")
	// strongNouns name instructions themselves; the rest are generic.
	strongNouns = setOf("instruction", "instructions", "prompt", "prompts", "directive", "directives",
		"guidelines", "guardrails", "programming", "training", "system prompt", "ethics", "morals",
		"principles", "guidance", "protocol", "protocols")
	// phraseEnd words close a noun phrase ("instructions and …", "rules above").
	phraseEnd = setOf("", ".", ",", ";", ":", "!", "?", "and", "or", "then", "now", "instead", "completely",
		"entirely", "altogether", "above", "below", "you", "that", "which", "so", "because", "in", "from",
		"about", "for", "of", "on", "at", "to", "with", "given", "immediately",
		// a condition only says when to drop the instructions
		"whenever", "when", "if", "unless", "once", "while", "after", "every", "each", "any")
	// clauseEnd words end the clause: nothing scopes the noun.
	clauseEnd = setOf("", ".", ",", ";", ":", "!", "?", "and", "then", "now", "instead", "completely",
		"entirely", "altogether", "above", "you", "that", "which", "immediately")
	// ownPrompt after "your" can only be the model's own.
	ownPrompt = setOf("system prompt", "system message", "developer message", "instructions", "programming",
		"guardrails", "safety rules", "safety guidelines", "safety filters", "safety settings", "content policy",
		"content policies", "directives")
	// compoundNext make a noun part of a compound ("your instructions file").
	compoundNext = setOf("file", "files", "doc", "docs", "document", "page", "template", "templates", "folder",
		"repo", "library", "manual", "sheet", "session", "sessions", "section")
	// givenWords and priorWords: "instructions given to you before".
	givenWords = setOf("given", "provided", "received", "you", "you've", "written", "sent")
	priorWords = setOf("before", "earlier", "previously", "above", "prior", "so", "until", "initially")
	// exfilQual next to a prompt noun names the model's own ("the system prompt").
	exfilQual = setOf("system", "developer", "hidden", "secret", "internal", "initial", "original",
		"preceding", "previous", "prior", "above", "pre", "startup", "starting", "first")
	// exfilNext may follow an extracted prompt ("print your instructions verbatim").
	exfilNext = setOf("verbatim", "exactly", "word", "back", "out", "fully", "again", "here", "below", "starting")
	// exfilNouns are prompt nouns that need no qualifier.
	exfilNouns = setOf("system message", "developer message", "initialization", "preprompt", "pre prompt",
		"everything above", "text above", "words above", "hidden text", "secret instructions")
	// personal marks text addressed to the model ("you", "your") or about AI.
	personal = []string{" you ", " your ", " yourself ", " you're ", " ai ", " assistant ", " chatgpt ",
		" gpt ", " claude ", " llm ", " chatbot ", " model ", " bot "}
)

func fields(s string) []string { return strings.Fields(s) }

// anyIn reports whether a word, or the word without a possessive 's, is in set.
func anyIn(words []string, set map[string]bool) bool {
	for _, w := range words {
		if set[w] || set[strings.TrimSuffix(w, "'s")] {
			return true
		}
	}
	return false
}

func newPhrases() []phrase {
	var ps []phrase
	ps = append(ps, overridePhrases()...)
	ps = append(ps, identityPhrases()...)
	ps = append(ps, promptPhrases()...)
	return ps
}

// setOfFiller are the words that may stand between a verb and a bare
// instruction noun ("ignore all the instructions").
var setOfFiller = setOf("all", "any", "every", "the", "of", "these", "those", "my", "its", "such", "other")
