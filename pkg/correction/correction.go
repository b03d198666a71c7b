// Package correction reads a correction out of a statement without a model
// (issue 19 item 3): "Actually the staging DB is Postgres 15, not MySQL",
// "the build server is no longer Jenkins", "we moved from Jenkins to GitHub
// Actions", "no, it's port 8443 for the admin API". It names what the
// statement is about (the subject), the value now true and the values it
// replaces, so that the memory it contradicts can be found by its own
// entities rather than by wording similarity.
package correction

import (
	"regexp"
	"strings"
	"unicode"
)

// Correction is what a correcting statement says.
type Correction struct {
	Subject string   // what the statement is about: "the staging DB" ("" when unnamed: "we moved from Y to X")
	New     string   // the value now true: "Postgres 15" ("" for "X is no longer Y")
	Old     []string // the values it replaces, when named: ["MySQL"]
	Marker  bool     // the statement says it corrects ("actually", "no,", "no longer", "from Y to X")

	// First words of the subject and of each replaced value, lowercased,
	// for Mentioned (set by Parse).
	subjFirst string
	oldFirst  []string
}

var (
	marker   = regexp.MustCompile(`(?i)^(?:actually|correction|to clarify|scratch that|i meant|no|nope|wait|sorry|not quite|wrong|incorrect)\b[\s,:!.—–-]*`)
	noLonger = regexp.MustCompile(`(?i)^(.{2,80}?) (?:is|are|was|were) no longer (?:on |in |at |using |running )?(.+?)(?:[,;] (?:it(?:'s|’s| is)|(?:we|they) use|now) (.+))?$`)
	fromTo   = regexp.MustCompile(`(?i)^(.{0,80}?)\b(?:moved|switched|migrated|changed|went|upgraded|bumped|replaced|swapped|is moving|are moving|is switching|are switching|is migrating|are migrating)(?: (.{1,60}?))? from (.+?) (?:to|with|for) (.+)$`)
	replaced = regexp.MustCompile(`(?i)^(.{0,80}?)\b(?:replaced|replacing|swapped|swapping) (.+?) (?:with|for) (.+)$`)
	copula   = regexp.MustCompile(`(?i)^(.{2,80}?) (is|are|was|uses|use|runs on|runs|lives at|lives in|listens on|goes to|is on|are on|is at|is in) (.+)$`)
	itIs     = regexp.MustCompile(`(?i)^(?:it|that)(?:'s|’s| is| was) (.+?) (?:for|of|on|in) (.{2,80})$`)
	notOld   = regexp.MustCompile(`(?i)^(.+?),? (?:and )?(?:not|rather than|instead of) (.+)$`)
	insteadX = regexp.MustCompile(`(?i)^(?:use |using )?(.+?) instead of (.+)$`)
)

// Parse reads content as a correction. It reports false for a statement
// that neither says it corrects nor names a replaced value.
func Parse(content string) (Correction, bool) {
	c, ok := parse(content)
	if ok {
		c.subjFirst = rawFirst(c.Subject)
		for _, o := range c.Old {
			c.oldFirst = append(c.oldFirst, rawFirst(o))
		}
	}
	return c, ok
}

func parse(content string) (Correction, bool) {
	s := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(content), ".!"))
	var c Correction
	if loc := marker.FindStringIndex(s); loc != nil && loc[1] < len(s) {
		// "No" alone opens a correction only with punctuation after it.
		head := strings.ToLower(strings.TrimSpace(s[:loc[1]]))
		if !(strings.HasPrefix(head, "no") && head == "no") {
			c.Marker = true
			s = strings.TrimSpace(s[loc[1]:])
		}
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "User said: "), "user said: ")
	if m := noLonger.FindStringSubmatch(s); m != nil {
		c.Subject, c.Old, c.New, c.Marker = clean(m[1]), split(m[2]), clean(m[3]), true
		return c, c.Subject != "" && len(c.Old) > 0
	}
	if m := fromTo.FindStringSubmatch(s); m != nil {
		subj := clean(m[1])
		if what := clean(m[2]); what != "" {
			subj = what
		}
		newer, scope := splitScope(m[4])
		c.Subject, c.Old, c.New, c.Marker = subjectOf(subj, scope), split(m[3]), clean(newer), true
		return c, len(c.Old) > 0 && c.New != ""
	}
	if m := replaced.FindStringSubmatch(s); m != nil {
		newer, scope := splitScope(m[3])
		c.Subject, c.Old, c.New, c.Marker = subjectOf(clean(m[1]), scope), split(m[2]), clean(newer), true
		return c, len(c.Old) > 0 && c.New != ""
	}
	body := s
	if m := notOld.FindStringSubmatch(s); m != nil {
		body, c.Old = m[1], split(m[2])
	}
	if m := itIs.FindStringSubmatch(body); m != nil {
		c.Subject, c.New = clean(m[2]), clean(m[1])
	} else if m := copula.FindStringSubmatch(body); m != nil {
		c.Subject, c.New = clean(m[1]), clean(m[3])
	} else if m := insteadX.FindStringSubmatch(s); m != nil {
		c.New, c.Old = clean(m[1]), split(m[2])
	}
	if c.New == "" || !c.Marker && len(c.Old) == 0 {
		return Correction{}, false
	}
	return c, true
}

// subjectOf is who or what moved: a named thing ("ledger-api migrated …"),
// else the scope ("… for CI"); "we", "I" and "the team" name nothing.
func subjectOf(subj, scope string) string {
	switch strings.ToLower(strings.TrimSpace(subj)) {
	case "", "we", "i", "i'm", "i am", "we're", "we are", "team", "the team", "user", "the user", "we've", "we have", "i've", "i have", "we just", "i just":
		return scope
	}
	for _, p := range []string{"we ", "i ", "the team ", "team ", "i'm ", "we're "} {
		if strings.HasPrefix(strings.ToLower(subj), p) {
			return scope
		}
	}
	return subj
}

// splitScope cuts "GitHub Actions for CI" into the value and its scope.
func splitScope(s string) (string, string) {
	low := strings.ToLower(s)
	for _, sep := range []string{" for ", " in ", " on ", " over ", " last ", " this ", " after ", " because ", ", "} {
		if i := strings.Index(low, sep); i > 0 {
			scope := ""
			if sep == " for " || sep == " in " || sep == " on " {
				scope = s[i+len(sep):]
				if j := strings.IndexAny(scope, ",;"); j > 0 {
					scope = scope[:j]
				}
			}
			return s[:i], clean(scope)
		}
	}
	return s, ""
}

func split(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`(?i),| or | and |/`).Split(s, -1) {
		if p = clean(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// clean trims punctuation, articles and time phrases from a part.
func clean(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), ".,;:!\"'`"))
	low := strings.ToLower(s)
	for _, suf := range []string{" anymore", " any more", " now", " today", " last week", " last month", " yesterday", " over the weekend"} {
		if strings.HasSuffix(low, suf) {
			s, low = s[:len(s)-len(suf)], low[:len(low)-len(suf)]
		}
	}
	for _, pre := range []string{"the ", "a ", "an ", "our ", "my ", "its "} {
		if strings.HasPrefix(low, pre) && len(s) > len(pre) {
			s = s[len(pre):]
			break
		}
	}
	return strings.TrimSpace(s)
}

// Tokens are the distinguishing words of a phrase, lowercased: letters and
// digits runs, without articles and function words.
func Tokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '#' && r != '+'
	}) {
		w = strings.Trim(w, ".-")
		if w == "" || function[w] {
			continue
		}
		if c, ok := canonical[w]; ok {
			w = c
		}
		out = append(out, w)
	}
	return out
}

var function = map[string]bool{"the": true, "a": true, "an": true, "of": true, "for": true, "in": true, "on": true,
	"to": true, "is": true, "are": true, "was": true, "our": true, "my": true, "its": true, "and": true, "or": true,
	"at": true, "by": true, "with": true, "it": true, "now": true, "not": true, "no": true, "actually": true, "we": true,
	"i": true, "user": true, "team": true, "has": true, "have": true, "be": true, "that": true, "this": true}

// canonical folds common short forms, so "DB" and "database" are one word.
var canonical = map[string]string{"db": "database", "dbs": "database", "databases": "database",
	"postgresql": "postgres", "pg": "postgres", "k8s": "kubernetes", "js": "javascript", "ts": "typescript",
	"repo": "repository", "repos": "repository", "gh": "github"}
