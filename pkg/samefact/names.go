package samefact

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quotes finds quoted strings: "double", “curly”, `code` and 'single' (an
// apostrophe inside a word is no quote).
var quotes = []*regexp.Regexp{
	regexp.MustCompile(`"([^"\n]{1,200})"`),
	regexp.MustCompile(`“([^”\n]{1,200})”`),
	regexp.MustCompile("`([^`\n]{1,200})`"),
	regexp.MustCompile(`(?:^|[\s(\[])'([^'\n]{1,200})'(?:$|[\s.,;:!?)\]])`),
}

// quoted returns the quoted strings of a text as names, lowercase with
// spaces collapsed: what a user quotes is meant literally. They come ahead
// of the text's other details, so their order is not compared (part).
func quoted(text string) []Detail {
	var out []Detail
	for _, re := range quotes {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			v := strings.Join(strings.Fields(lowerWord(m[1])), " ")
			if v = strings.TrimRight(v, trailing); v != "" {
				out = append(out, Detail{Kind: Name, Value: v, Text: `"` + m[1] + `"`, part: true})
			}
		}
	}
	return out
}

// web reads a URL, an email address, a handle or a path.
func (s *scanner) web() ([]Detail, int) {
	f := s.at(0)
	w := f.lower
	name := func(v string) ([]Detail, int) {
		return []Detail{{Kind: Name, Value: v, Text: f.raw}}, 1
	}
	switch {
	case strings.HasPrefix(w, "http://"), strings.HasPrefix(w, "https://"), strings.HasPrefix(w, "ftp://"),
		strings.HasPrefix(w, "www.") && len(w) > 4:
		return name(strings.TrimRight(w, "/"))
	case strings.Count(w, "@") == 1:
		user, host, _ := strings.Cut(w, "@")
		if host != "" && (user == "" || strings.Contains(host, ".")) && hasLetter(host) {
			return name(w)
		}
	case strings.HasPrefix(w, "#") && len(w) > 1 && hasLetter(w):
		return name(w)
	case isPath(w):
		return name(strings.TrimRight(f.raw, "/"))
	}
	return nil, 0
}

// isPath reports a file system path: rooted ("/etc/hosts", "~/.ssh",
// "./run.sh", "C:\x"), or relative with a file extension or a digit
// ("src/main.go"); "and/or" is no path.
func isPath(w string) bool {
	switch {
	case len(w) > 1 && (strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../")):
		return hasLetter(w) || hasDigit(w)
	case len(w) > 3 && w[1] == ':' && w[2] == '\\':
		return true
	case strings.Contains(w, "/") && hasLetter(w):
		last := w[strings.LastIndexByte(w, '/')+1:]
		return strings.Contains(last, ".") || hasDigit(w)
	}
	return false
}

// notNames are dotted abbreviations that look like file names.
var notNames = map[string]bool{"e.g": true, "i.e": true, "a.m": true, "p.m": true, "etc": true, "vs": true, "u.s": true}

// identifier reads a code or identifier: letters with digits ("P79",
// "gpt-4o", "x86_64"), snake_case, camelCase, a file name or domain
// ("main.go", "example.com"). A leftover with digits and no letter is a
// number as written.
func (s *scanner) identifier() ([]Detail, int) {
	f := s.at(0)
	w := trimPossessive(f.lower)
	raw := f.raw
	switch {
	case hasDigit(w) && !hasLetter(w):
		return []Detail{{Kind: Number, Value: w, Text: raw}}, 1
	case hasDigit(w),
		strings.Contains(strings.Trim(w, "_"), "_"),
		isCamel(raw),
		isDotted(w) && !notNames[w]:
		return []Detail{{Kind: Name, Value: w, Text: raw}}, 1
	}
	return nil, 0
}

// isCamel reports a lowercase letter followed by an uppercase one inside a
// word: "maxRetries", "iPhone", "JavaScript".
func isCamel(w string) bool {
	prev := rune(0)
	for _, r := range w {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true
		}
		prev = r
	}
	return false
}

// isDotted reports words joined by dots: "main.go", "example.com",
// "node.js".
func isDotted(w string) bool {
	parts := strings.Split(w, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.IndexFunc(p, func(r rune) bool { return notAlnum(r) && r != '-' && r != '_' }) >= 0 {
			return false
		}
	}
	return hasLetter(parts[len(parts)-1])
}

// capitalised reads a capitalised word that is not a stopword: a name,
// weak at the start of a sentence unless written in capitals ("AWS").
func (s *scanner) capitalised() ([]Detail, int) {
	f := s.at(0)
	r, _ := utf8.DecodeRuneInString(f.raw)
	if !unicode.IsUpper(r) {
		return nil, 0
	}
	w := trimPossessive(f.lower)
	if w == "" || !hasLetter(w) || isStopword(w) {
		return nil, 0
	}
	acronym := utf8.RuneCountInString(w) > 1 && strings.ToUpper(f.raw) == f.raw
	return []Detail{{Kind: Name, Value: w, Text: f.raw, weak: f.start && !acronym}}, 1
}
