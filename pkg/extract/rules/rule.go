package rules

import (
	"regexp"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// rule is one capture pattern. Patterns are anchored at the start of a
// clause (after fillers like "actually," or "please"), which is what keeps a
// trigger word inside someone else's sentence from firing.
type rule struct {
	name     string
	first    []string // first words that can open a match; nil: any, gated by keywords
	keywords []string // one must occur in the clause before the pattern runs (cheap prefilter)
	re       *regexp.Regexp
	build    func(*ruleCtx) (draft, bool)
}

// ruleCtx is a clause being matched: orig keeps the user's case, low is the
// same text with ASCII letters lowered (same byte offsets).
type ruleCtx struct {
	orig, low string
	m         []int
}

// g returns submatch n in the user's case, trimmed.
func (r *ruleCtx) g(n int) string {
	if 2*n+1 >= len(r.m) || r.m[2*n] < 0 {
		return ""
	}
	return strings.TrimSpace(r.orig[r.m[2*n]:r.m[2*n+1]])
}

// gl returns submatch n lowercased.
func (r *ruleCtx) gl(n int) string {
	if 2*n+1 >= len(r.m) || r.m[2*n] < 0 {
		return ""
	}
	return strings.TrimSpace(r.low[r.m[2*n]:r.m[2*n+1]])
}

// draft is what a rule recognised, before routing, keys and grounding.
type draft struct {
	typ        memory.Type
	class      class
	content    string // primary content, the user's words in the third person
	key        string // complete key when the rule fixes it ("profile/name")
	prefix     string // key namespace when the topic is derived
	toolPrefix string // key namespace instead of prefix when routed to tool-usage
	topic      string // lowercased text the key topic is derived from
	payload    string // lowercased text that must carry meaning
	minContent int    // content words the payload needs (default 1, -1 for none)
}

// likeBlock opens payloads that react to the conversation rather than state
// a lasting preference ("I like that", "I love your idea").
var likeBlock = []string{"that", "this", "these", "those", "your", "yours", "them", "him", "her",
	"you", "how ", "what you", "our ", "their ", "his ", "the idea", "the way you", "the suggestion",
	"the second", "the first", "the last", "the former", "the latter", "the other", "option", "both",
	"either", "neither", "when you said", "it.", "it,", "what ", "where ", "to think",
	"working with you", "talking to you", "the answer", "the response", "the plan", "the changes",
	"the fix", "the way ", "the thought", "the color", "the look"}

func blockedPayload(low string, block []string) bool {
	if low == "it" || strings.HasPrefix(low, "it ") && !strings.HasPrefix(low, "it when") && !strings.HasPrefix(low, "it if") {
		return true
	}
	for _, b := range block {
		if low == strings.TrimRight(b, " .,") || strings.HasPrefix(low, b) && (strings.HasSuffix(b, " ") ||
			len(low) == len(b) || !isWordByte(low[len(b)])) {
			return true
		}
	}
	return false
}

// habitBlock verbs after "always"/"never" narrate rather than instruct
// ("I always forget …", "you never said …").
var habitBlock = setOf("forget", "forgets", "forgot", "said", "say", "says", "told", "tell", "know",
	"knew", "thought", "think", "wanted", "want", "wonder", "wondered", "get", "got", "seem",
	"seems", "feel", "felt", "mess", "screw", "lose", "miss", "struggle", "struggled", "wish", "hope",
	"end", "ended", "did", "do", "does", "was", "were", "had", "been", "am", "is", "are", "tried",
	"mind", "again", "heard", "understood", "understand", "listen", "listens", "remember", "mean",
	"meant", "ask", "asks", "asked", "have", "has", "gonna", "will", "would", "could", "can",
	"seemed", "worked", "work", "works", "fail", "fails", "failed", "break", "breaks", "like",
	// irregular pasts narrate too ("never saw this coming")
	"saw", "went", "came", "took", "gave", "made", "found", "left", "lost", "met", "paid", "ran",
	"sat", "sent", "spent", "stood", "won", "wrote", "kept", "brought", "bought", "caught", "taught",
	"became", "began", "drew", "drove", "ate", "fell", "flew", "grew", "hid", "led", "rode", "sang",
	"shook", "slept", "spoke", "stole", "swam", "threw", "woke", "wore", "let",
	// past participles narrate ("never done it before", "never seen that")
	"done", "seen", "gone", "known", "taken", "given", "eaten", "been", "heard", "shown", "grown",
	// states, not instructions ("always calm and peaceful")
	"calm", "peaceful", "quiet", "positive", "cheerful", "grateful", "something", "nice", "fun")

// edAllowed are base verbs ending in "ed" ("always embed …").
var edAllowed = setOf("embed", "feed", "seed", "need", "proceed", "exceed", "speed", "shred", "bed", "wed", "red")

// narrative reports whether a payload's first word narrates instead of instructing.
func narrative(low string) bool {
	w := firstWord(low)
	return habitBlock[w] || strings.HasSuffix(w, "ed") && !edAllowed[w]
}

// notImperative: after "always"/"never" an instruction starts with a base
// verb; "always here to help", "never gets old", "always staying …" do not.
func notImperative(low string) bool {
	w := firstWord(low)
	if narrative(low) || nonVerbs[w] || w == "" {
		return true
	}
	if w == "open" || w == "free" { // "always open to ideas" describes
		next := firstWord(low[len(w):])
		return next == "to" || next == "for"
	}
	if imperativeVerbs[w] {
		return false
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5 && w != "bring" && w != "string":
		return true
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return true
	}
	return false
}

var nonVerbs = setOf("here", "there", "up", "down", "good", "great", "so", "such", "a", "an", "the",
	"my", "your", "our", "his", "her", "their", "its", "on", "in", "at", "for", "with", "ready",
	"happy", "glad", "nice", "fun", "welcome", "available", "around", "been", "a", "too", "very",
	"really", "just", "that", "this", "it", "something", "someone", "more", "less", "the", "busy", "late", "early", "right", "wrong", "true", "fine", "okay", "ok", "again", "ever",
	"mind", "once", "twice", "enough", "home", "away", "sure", "proud", "grateful", "thankful")

// evaluative: "… must be so rewarding", "must be a wonderful experience" are
// feelings about something, not rules for it.
func evaluative(low string) bool {
	rest := strings.TrimPrefix(low, "be ")
	if rest == low {
		for _, v := range []string{"love ", "like ", "enjoy ", "feel ", "miss ", "know ", "think ", "hate ", "really ", "so ", "totally ", "definitely ", "surely ", "see ", "realize ", "appreciate ", "get "} {
			if strings.HasPrefix(low, v) {
				return true
			}
		}
		return false
	}
	for {
		w, tail := splitWord(rest)
		switch w {
		case "so", "really", "very", "pretty", "super", "truly", "incredibly", "quite", "such", "absolutely", "totally":
			return true
		case "a", "an":
			rest = tail
			continue
		}
		return evaluativeWords[w]
	}
}

var evaluativeWords = setOf("amazing", "wonderful", "great", "fun", "incredible", "fulfilling",
	"rewarding", "hard", "tough", "exciting", "awesome", "cool", "nice", "lovely", "beautiful",
	"scary", "difficult", "exhausting", "stoked", "proud", "thrilled", "excited", "tired", "fantastic",
	"awful", "terrible", "horrible", "crazy", "insane", "unreal", "interesting", "special",
	"challenging", "inspiring", "satisfying", "journey", "blast", "relief", "dream", "nightmare",
	"pain", "joy", "experience", "feeling", "adventure", "thrill", "treat", "delight", "happy",
	"sad", "fun", "busy", "overwhelming", "stressful", "hectic", "wild", "surreal", "magical",
	"nerve-wracking", "bittersweet", "emotional", "intense", "worth", "cute", "adorable")

// pronounSubjects cannot be the subject of a third-party rule ("it must be
// the cache" is a guess, not a policy).
var pronounSubjects = setOf("it", "that", "this", "there", "he", "she", "they", "you", "i", "we",
	"what", "which", "who", "something", "everything", "anything", "nothing", "one", "someone",
	"somebody", "here", "it's", "that's", "there's", "these", "those", "whatever", "i'm", "you're",
	"we're", "they're", "he's", "she's", "why", "how", "where", "when", "if", "so", "but", "and",
	"maybe", "then", "thing", "things", "which", "error", "warning", "fatal", "panic", "exception")

// speculation after "must" guesses at a cause ("… must be in the parser").
var speculation = []string{"be in ", "be on ", "be at ", "be related", "be caused", "be because",
	"be something", "be wrong", "be broken", "be down", "be the reason", "be why", "be from",
	"be my ", "be your ", "be our ", "be some ", "be due", "be missing", "be out", "be off",
	"be a bug", "be an issue", "be a problem", "have been", "'ve been", "be kidding", "be joking",
	"be tired", "be confused", "be mistaken", "be crazy", "be nice", "be fun", "be hard", "be it",
	"be that", "be this", "be the ", "be somewhere", "be cached", "be stale", "be a typo", "be flaky", "be slow", "be failing",
	"be timing out", "be a race", "be the cache", "be a bug"}

func speculative(low string) bool {
	for _, s := range speculation {
		if strings.HasPrefix(low, s) {
			return true
		}
	}
	// "must have passed", "must have gone": a guess about the past.
	if w, rest := splitWord(low); w == "have" || w == "'ve" {
		pp := firstWord(rest)
		return strings.HasSuffix(pp, "ed") || strings.HasSuffix(pp, "en") || pp == "done" || pp == "gone" ||
			pp == "run" || pp == "had" || pp == "got" || pp == "made" || pp == "felt" || pp == "lost" || evaluativeWords[pp]
	}
	return false
}

// nameOf takes a name from the start of s: up to four words, ending at
// punctuation or a joining word ("Sam, and I work at …" → "Sam").
func nameOf(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		lw := asciiLower(normApos(strings.TrimRight(w, ",;:.!?)")))
		if nameStop[lw] || lw == "" {
			break
		}
		out = append(out, strings.TrimRight(w, ",;:.!?)"))
		if len(out) == 4 || strings.ContainsAny(w[len(w)-1:], ",;:.!?)") {
			break
		}
	}
	return strings.Join(out, " ")
}

var nameStop = setOf("and", "but", "by", "btw", "from", "so", "which", "who", "i", "i'm", "im",
	"please", "thanks", "though", "not", "because", "since", "if", "when", "for", "at", "in", "on",
	"now", "here", "too", "as", "or", "to", "with")

// topicOf cuts a comparison off a preference ("tabs over spaces" → "tabs").
func topicOf(low string) string {
	for _, sep := range []string{" over ", " instead of ", " rather than ", " than ", " vs ", " versus ", " to "} {
		if i := strings.Index(low, sep); i > 0 {
			return low[:i]
		}
	}
	return low
}

// subject3 names the speaker in the third person.
func subject3(low string) string {
	if low == "we" {
		return "The team"
	}
	return "User"
}
