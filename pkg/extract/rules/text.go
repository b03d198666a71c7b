package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compile turns a readable pattern into a regexp: a space matches any run of
// whitespace and an apostrophe matches ' or ’. Patterns are constants, so a
// bad one is a programming error caught by every test.
func compile(p string) *regexp.Regexp {
	p = strings.ReplaceAll(p, "'", "['’]")
	p = strings.ReplaceAll(p, " ", `\s+`)
	return regexp.MustCompile(p)
}

// sentence finishes content: one line, single spaces, a capital first letter,
// a full stop, valid UTF-8 and at most MaxContentChars bytes.
func sentence(s string) string {
	s = singleSpaced(strings.ToValidUTF8(s, ""))
	s = strings.TrimRight(s, " ,;:-–—")
	if s == "" {
		return ""
	}
	if len(s) > MaxContentChars-1 {
		s = cutWords(s, MaxContentChars-1)
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
	default:
		s += "."
	}
	return capitalise(s)
}

// singleSpaced collapses whitespace runs to one space and trims the ends.
func singleSpaced(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// cutWords cuts s to at most n bytes, at a word boundary when there is one.
func cutWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:-")
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	// Keep acronyms and names ("API", "Sam"): only lower a common opening word.
	if r == utf8.RuneError || !unicode.IsUpper(r) || len(s) > n && s[n] >= 'A' && s[n] <= 'Z' {
		return s
	}
	if w := firstWord(s); !stopWords[w] && !imperativeVerbs[w] && w != "user" {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// inflect puts a base verb in the third person singular ("prefer" → "prefers").
func inflect(w string) string {
	if len(w) > 1 && strings.ToUpper(w) == w && strings.ToLower(w) != w {
		return strings.ToUpper(inflect(strings.ToLower(w))) // "PREFER" → "PREFERS"
	}
	lw := asciiLower(normApos(w))
	switch lw {
	case "have":
		return "has"
	case "do":
		return "does"
	case "go":
		return "goes"
	case "be", "am", "are":
		return "is"
	case "don't", "dont":
		return "doesn't"
	case "do not":
		return "does not"
	}
	if modalOrPast[lw] || strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ly") ||
		strings.ContainsAny(lw, "'’") || lw == "" {
		return w
	}
	for _, r := range lw {
		if r < 'a' || r > 'z' {
			return w
		}
	}
	switch {
	case strings.HasSuffix(lw, "ss"), strings.HasSuffix(lw, "sh"), strings.HasSuffix(lw, "ch"),
		strings.HasSuffix(lw, "x"), strings.HasSuffix(lw, "z"), strings.HasSuffix(lw, "o"):
		return w + "es"
	case strings.HasSuffix(lw, "s"):
		return w
	case len(lw) > 1 && lw[len(lw)-1] == 'y' && !strings.ContainsRune("aeiou", rune(lw[len(lw)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

var modalOrPast = setOf("can", "could", "will", "would", "shall", "should", "must", "might", "may",
	"can't", "won't", "didn't", "did", "was", "were", "never", "always", "also", "still", "only",
	"usually", "often", "sometimes", "rarely", "generally", "typically", "normally", "mostly",
	"really", "just", "even", "already", "went", "got", "made", "said", "told", "knew", "thought",
	"chose", "wrote", "ran", "took", "gave", "is", "has", "not")

// inflectPhrase inflects the first verb of a phrase, stepping over adverbs
// ("strongly prefer X" → "strongly prefers X").
func inflectPhrase(p string) string {
	rest := p
	pre := ""
	for i := 0; i < 2; i++ {
		w, tail := splitWord(rest)
		lw := asciiLower(w)
		if strings.HasSuffix(lw, "ly") || lw == "really" || lw == "also" || lw == "still" || lw == "just" ||
			lw == "much" || lw == "definitely" || lw == "absolutely" || lw == "always" || lw == "never" ||
			lw == "usually" || lw == "mostly" || lw == "often" {
			pre += w + " "
			rest = tail
			continue
		}
		break
	}
	w, tail := splitWord(rest)
	if w == "" {
		return p
	}
	out := pre + inflect(w)
	if tail != "" {
		out += " " + tail
	}
	return out
}

// splitWord returns the first space-separated word and the rest.
func splitWord(s string) (string, string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}

// thirdPerson rewrites a first-person opening to the third person, so that a
// stored fact reads the same whoever recalls it ("I'm vegan" → "User is vegan").
func thirdPerson(s string) string {
	low := asciiLower(normApos(s))
	for _, r := range personRewrites {
		if strings.HasPrefix(low, r.from) {
			return r.to + s[prefixLen(s, r.from):]
		}
	}
	switch w, tail := splitWord(s); asciiLower(w) {
	case "i":
		return "User " + inflectPhrase(tail)
	case "we":
		return "The team " + inflectPhrase(tail)
	}
	return s
}

// prefixLen is the byte length in s of a lowercase straight-apostrophe prefix
// (curly apostrophes are three bytes in s but one in the prefix).
func prefixLen(s, prefix string) int {
	i, j := 0, 0
	for j < len(prefix) && i < len(s) {
		if strings.HasPrefix(s[i:], "’") {
			i += len("’")
		} else {
			i++
		}
		j++
	}
	return i
}

var personRewrites = []struct{ from, to string }{
	{"i'm ", "User is "}, {"i am ", "User is "}, {"i've ", "User has "}, {"i have ", "User has "},
	{"i'd ", "User would "}, {"i'll ", "User will "}, {"i will ", "User will "}, {"i was ", "User was "},
	{"my ", "User's "}, {"we're ", "The team is "}, {"we are ", "The team is "},
	{"we've ", "The team has "}, {"we have ", "The team has "}, {"we'll ", "The team will "},
	{"we will ", "The team will "}, {"our ", "The "},
}

// words splits lowercased text into word tokens for keys, tools and checks.
func words(low string) []string {
	return strings.FieldsFunc(low, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("'’+#._/*-@", r))
	})
}

// trimToken strips punctuation a word can carry at its ends ("main.", "'x'").
func trimToken(t string) string {
	return strings.Trim(t, ".'’-_/*@")
}

// contentWords counts words that carry meaning (not stop words).
func contentWords(low string) int {
	n := 0
	for _, w := range words(low) {
		w = trimToken(normApos(w))
		if w != "" && !stopWords[w] {
			n++
		}
	}
	return n
}
