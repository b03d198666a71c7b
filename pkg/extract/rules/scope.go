package rules

import (
	"strings"
	"unicode"
)

// Keys that identify a fact (issue 19 item 5): a derived key is its type
// and topic ("preference/commit-messages") plus the entities that say which
// thing it is about — the project, service, person or numbered item named
// after "in", "for", "on", "at" ("in project number 21", "for the billing
// service", "in ledger-api"). "Short commit messages in project number 2"
// and "conventional commits in project number 21" then never share a key,
// while restatements of one fact (same topic, same entities) still do.

// maxScopeParts bounds the entities a key carries.
const maxScopeParts = 2

// scopePrepositions open the phrase that says which thing a fact is about.
var scopePrepositions = setOf("in", "for", "on", "at", "within", "across", "inside")

// entityNouns name a thing a fact can be scoped to ("billing service").
var entityNouns = setOf("project", "projects", "service", "services", "app", "apps", "api", "apis", "repo",
	"repository", "repositories", "repos", "pipeline", "pipelines", "cluster", "backend", "frontend", "team",
	"worker", "workers", "database", "db", "module", "package", "library", "client", "server", "site",
	"website", "monorepo", "microservice", "microservices", "job", "jobs", "bot", "cli", "sdk", "product")

// numberedNouns take an identifying number ("project number 21", "issue 42").
var numberedNouns = setOf("project", "issue", "ticket", "sprint", "team", "service", "version", "release",
	"milestone", "phase", "epic", "story", "task", "pr", "build", "cluster", "environment", "env", "room")

// scopeOf returns the entities of the evidence's scope phrases, as key
// parts: "project-21", "billing-service", "ledger-api", "alice".
func scopeOf(ev string) []string {
	ws := strings.Fields(ev)
	var out []string
	add := func(p string) {
		p = strings.Trim(p, "-")
		if p != "" && len(out) < maxScopeParts && !contains(out, p) {
			out = append(out, p)
		}
	}
	for i := 0; i < len(ws); i++ {
		if !scopePrepositions[asciiLower(trimToken(ws[i]))] || strings.ContainsAny(ws[i], ",;:") {
			continue
		}
		// The phrase runs to the next preposition or punctuation.
		j := i + 1
		for ; j < len(ws); j++ {
			w := asciiLower(trimToken(ws[j]))
			if scopePrepositions[w] || w == "and" || w == "but" || w == "because" || w == "so" || w == "when" {
				break
			}
			if strings.ContainsAny(ws[j], ",;:.!?") && !isInnerDot(ws[j]) {
				j++
				break
			}
		}
		for _, p := range entities(ws[i+1:j], asciiLower(trimToken(ws[i])) == "for") {
			add(p)
		}
		i = j - 1
	}
	return out
}

// entities reads a scope phrase's identifying words. A bare capitalised
// name counts after "for" ("for Alice"), not after "in" or "on", where it
// is usually a value ("respond in Spanish", "deploy on Friday").
func entities(phrase []string, forWhom bool) []string {
	var out []string
	clean := make([]string, len(phrase))
	for i, w := range phrase {
		clean[i] = strings.Trim(w, ",;:.!?()\"'’`")
	}
	for i := 0; i < len(clean); i++ {
		w, lw := clean[i], asciiLower(clean[i])
		switch {
		case numberedNouns[lw] && i+1 < len(clean):
			// "project number 21", "project #21", "issue 42"
			k := i + 1
			if nl := asciiLower(clean[k]); (nl == "number" || nl == "no" || nl == "nr") && k+1 < len(clean) {
				k++
			}
			if n := strings.TrimPrefix(clean[k], "#"); isNumber(n) {
				out = append(out, lw+"-"+n)
				i = k
				continue
			}
			if entityNouns[lw] {
				continue // "the project": no name
			}
		case strings.HasPrefix(w, "#") && isNumber(w[1:]):
			out = append(out, w[1:])
		case isNamed(w):
			// "ledger-api", "geo-search", "v2", "Android app", "for Alice"
			name := asciiLower(w)
			switch {
			case i+1 < len(clean) && entityNouns[asciiLower(clean[i+1])]:
				name += "-" + asciiLower(clean[i+1])
				i++
			case isIdentifier(w):
			case calendarWords[name] || acronym(w) && strings.HasSuffix(w, "s"):
				continue // "on Friday", "in Spanish", "for all PRs": values, not things
			case !forWhom && !acronym(w) && !languageWords[name]:
				continue
			}
			out = append(out, name)
		case entityNouns[lw] && i > 0 && !scopeFiller[asciiLower(clean[i-1])] && !isNamed(clean[i-1]):
			// "the billing service", "the data pipeline"
			out = append(out, asciiLower(clean[i-1])+"-"+lw)
		}
	}
	return out
}

// scopeFiller cannot name a thing before an entity noun ("the service").
var scopeFiller = setOf("the", "a", "an", "this", "that", "our", "my", "your", "their", "all", "every", "each",
	"any", "new", "old", "same", "other", "whole", "entire", "some", "both", "these", "those", "its")

// isIdentifier: "ledger-api", "v2", "s3": hyphenated or letters with digits.
func isIdentifier(w string) bool {
	return isNamed(w) && !unicode.IsUpper([]rune(w)[0]) || strings.ContainsAny(w, "-0123456789")
}

// acronym: "PRs", "API", "CI": all capitals (a plural s allowed).
func acronym(w string) bool {
	w = strings.TrimSuffix(w, "s")
	for _, r := range w {
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// languageWords name what code is written in: a scope after "in".
var languageWords = setOf("go", "golang", "python", "javascript", "typescript", "java", "kotlin", "rust",
	"ruby", "php", "swift", "scala", "elixir", "haskell", "c", "c++", "c#", "sql", "bash", "lua", "dart", "yaml",
	"json", "toml", "markdown", "terraform", "html", "css")

var calendarWords = setOf("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
	"november", "december", "english", "french", "spanish", "german", "italian", "portuguese", "dutch",
	"japanese", "chinese", "korean", "russian", "arabic", "hindi", "polish", "swedish", "turkish")

// isNamed: a hyphenated or numbered identifier, or a capitalised name.
func isNamed(w string) bool {
	if w == "" || w == "I" {
		return false
	}
	if i := strings.IndexByte(w, '-'); i > 0 && i < len(w)-1 {
		return true
	}
	hasLetter, hasDigit := false, false
	for _, r := range w {
		hasLetter = hasLetter || unicode.IsLetter(r)
		hasDigit = hasDigit || unicode.IsDigit(r)
	}
	if hasLetter && hasDigit {
		return true
	}
	r := []rune(w)
	return unicode.IsUpper(r[0]) && hasLetter
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	return true
}

// isInnerDot: "3.12", "next.js" keep their dot.
func isInnerDot(w string) bool {
	i := strings.IndexByte(w, '.')
	return i > 0 && i < len(w)-1
}

// scopedKey adds the scope's entities the key does not already name.
func scopedKey(key string, scope []string) string {
	if len(scope) == 0 {
		return key
	}
	have := map[string]bool{}
	for _, w := range strings.FieldsFunc(key, func(r rune) bool { return r == '/' || r == '-' }) {
		have[w] = true
	}
	var add []string
	for _, s := range scope {
		all := true
		for _, w := range strings.Split(s, "-") {
			all = all && have[w]
		}
		if !all {
			add = append(add, s)
		}
	}
	if len(add) == 0 {
		return key
	}
	return keyFor(key, strings.Join(add, "/"))
}
