package rules

import "strings"

// Precision checks (issue 24): what a rule matched is refused when it is
// not a durable fact about the speaker. Measured on the labelled set in
// pkg/extract/testdata/captures_labelled.jsonl.
//
//   - advice to the other speaker ("make sure you bring a jacket", "never
//     give up on your dreams") is not the speaker's preference;
//   - a payload whose object only the conversation names ("I love watching
//     them play", "the freedom it brings") is a fragment;
//   - a moment ("tonight", "this time", "right now") is not durable;
//   - "we" outside work ("we always go camping") is a family or friends,
//     not a team, and is left to the transcript.

// imprecise reports whether a built draft must be refused.
func imprecise(name string, d draft, payload, restLow string, sig signals) bool {
	technical := sig.tool || sig.cat != nil
	switch name {
	case RuleMakeSure:
		// "make sure to always pin images", "… run the linter before
		// pushing" are standing rules; "make sure you get some rest" is care.
		if !standing(restLow) && !(sig.tool && sig.procedural) || addressesOther(payload) {
			return true
		}
	case RuleStopStart:
		if !technical && !workContext(restLow, sig) {
			return true
		}
	case RuleAlways, RuleNever, RuleDontEver:
		if !technical && !workContext(restLow, sig) && (addressesOther(payload) || lifeAdvice(payload)) || wordCount(payload) < 2 {
			return true
		}
	case RuleLike, RuleDislike, RulePrefer, RuleRather, RuleHabit:
		if unresolved(headPhrase(payload)) {
			return true
		}
	case RuleRemember:
		if wordCount(payload) < 3 && copulaSubject(payload) == "" {
			return true // "don't forget the semicolon"
		}
	}
	switch d.class {
	case classAffective, classDirective, classHabit:
		if momentary(restLow) {
			return true
		}
	}
	if name == RuleUse && strings.HasSuffix(restLow, " now") && strings.Contains(restLow, "using ") || name == RuleUse && momentary(restLow) {
		return true // "I'm using the old laptop today"
	}
	if strings.HasPrefix(d.content, "The team") && !workContext(restLow, sig) {
		return true
	}
	return false
}

// standing: the clause says the rule holds every time.
func standing(low string) bool {
	return hasWord(low, "always") || hasWord(low, "never") || hasWord(low, "whenever") ||
		strings.Contains(low, "every time") || strings.Contains(low, "each time") ||
		strings.Contains(low, "from now on")
}

// addressesOther: the instruction is about the listener's own life ("your
// dreams", "yourself", "tell you otherwise").
func addressesOther(low string) bool {
	for _, w := range words(low) {
		switch trimToken(normApos(w)) {
		case "you", "your", "yours", "yourself", "yourselves", "you're", "you've", "you'll":
			return true
		}
	}
	return false
}

// lifeAdvice are encouragements with no object a memory could act on.
func lifeAdvice(low string) bool {
	for _, p := range []string{"give up", "quit", "stop believing", "look on the bright side", "be yourself",
		"change", "lose hope", "stop dreaming", "stop trying", "settle", "forget where", "let anyone"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// headPhrase is a payload up to its first aside ("the ocean, it calms me
// down" → "the ocean").
func headPhrase(low string) string {
	for _, sep := range []string{",", " - ", "- ", " – ", " — ", ";", " because", " 'cause", " cause ", " so ", " but ", " unless "} {
		if i := strings.Index(low, sep); i > 0 {
			low = low[:i]
		}
	}
	if strings.HasPrefix(low, "it when ") || strings.HasPrefix(low, "it if ") {
		low = low[3:]
	}
	return low
}

// unresolved: the phrase points at something only the conversation names.
// "it" counts near the start or after a noun ("the freedom it brings"),
// not as the object of a verb ("making it a better place").
func unresolved(low string) bool {
	ws := words(low)
	for i, w := range ws {
		switch trimToken(normApos(w)) {
		case "them", "they", "these", "those", "you", "your", "yours", "you're", "here":
			return true
		case "it":
			if i < 3 || !objectOfVerb(trimToken(ws[i-1])) {
				return true
			}
		}
	}
	for _, p := range []string{"of that", "to that", "in that", "that world", "when that", "of this ", "like this", "this one", "that one", "the one "} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// momentary: the clause is about now, not about how things are.
func momentary(low string) bool {
	for _, p := range []string{"tonight", "today", "tomorrow", "right now", "this time", "next time", "this morning",
		"this afternoon", "this evening", "this weekend", "at the moment", "yesterday", "last night", "this pr", "after that"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// workContext: "we" is a team when the clause is about tools, code,
// services or the work itself.
func workContext(low string, sig signals) bool {
	if sig.tool {
		return true
	}
	for _, w := range words(low) {
		w = trimToken(w)
		if projectNouns[w] || workWords[w] || projectName(w) {
			return true
		}
	}
	return false
}

// projectName: "ledger-api", "v2", "postgresql14": a hyphenated or
// numbered name, the way services and versions are written.
func projectName(w string) bool {
	i := strings.IndexByte(w, '-')
	if i > 0 && i < len(w)-1 && isWordByte(w[i-1]) && isWordByte(w[i+1]) && !strings.ContainsAny(w, "0123456789") {
		return true
	}
	return false
}

var workWords = setOf("error", "errors", "tracking", "monitoring", "alerts", "alerting", "database",
	"schema", "endpoint", "endpoints", "commit", "commits", "branch", "branches", "deploy", "deploys", "release", "releases", "sprint", "sprints", "standup", "ticket",
	"tickets", "customers", "clients", "support", "python", "golang", "java", "kotlin", "rust", "typescript",
	"javascript", "android", "ios", "postgres", "redis", "rest", "grpc", "monolith", "microservices",
	"framework", "language", "feature", "features", "flag", "flags", "table", "tables", "versioning", "cron",
	"lambda", "aws", "gcp", "azure", "cloud", "linting", "formatting", "pull", "requests", "review", "reviews", "tracing", "logging", "metrics", "dependencies", "version", "versions")

func hasWord(low, w string) bool {
	for _, x := range words(low) {
		if trimToken(x) == w {
			return true
		}
	}
	return false
}

// objectOfVerb: the word before "it" is a verb taking it as its object.
func objectOfVerb(prev string) bool {
	return strings.HasSuffix(prev, "ing") || imperativeVerbs[prev]
}
