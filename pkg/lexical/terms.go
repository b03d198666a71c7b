package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTermBytes drops longer words: base64, minified code and hex dumps are
// noise to BM25 and would only grow the index.
const maxTermBytes = 64

// joiners join the parts of an identifier-like word ("file.go", "a/b",
// "pre-commit"); the apostrophe joins too but stays inside its part.
const joiners = "-_./:@"

// Terms returns the index terms of text in order, repeats kept: what BM25
// counts. See the package documentation for the rules.
func Terms(text string) []string {
	return appendTerms(nil, text)
}

// appendTerms appends text's terms to dst.
func appendTerms(dst []string, text string) []string {
	for i := 0; i < len(text); {
		dst, i = appendNext(dst, text, i)
	}
	return dst
}

// AnyTerm reports whether one of text's terms (those Terms returns)
// satisfies has. It reads text token by token and stops at the first match,
// without building the list.
func AnyTerm(text string, has func(term string) bool) bool {
	var buf [8]string
	for i := 0; i < len(text); {
		var ts []string
		ts, i = appendNext(buf[:0], text, i)
		for _, t := range ts {
			if has(t) {
				return true
			}
		}
	}
	return false
}

// appendNext appends the terms of the token starting at byte i of text (none
// for a separator) and returns where the next token starts.
func appendNext(dst []string, text string, i int) ([]string, int) {
	r, n := utf8.DecodeRuneInString(text[i:])
	switch {
	case isCJK(r):
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isCJK(r) {
				break
			}
			j += n
		}
		return appendBigrams(dst, text[i:j]), j
	case isWordRune(r):
		j, joined := scanWord(text, i)
		if term, end, ok := symbolWord(text, i, j); ok {
			return append(dst, term), end
		}
		return appendWord(dst, text[i:j], joined), j
	default:
		return dst, i + n
	}
}

// scanWord returns where the word starting at i ends: word runes, joined by
// single joiners or apostrophes that have a word rune on either side; and
// whether a joiner other than an apostrophe joined parts.
func scanWord(text string, i int) (end int, joined bool) {
	j := i
	for j < len(text) {
		if c := text[j]; c < utf8.RuneSelf && isWordRune(rune(c)) {
			j++ // ASCII fast path
			continue
		}
		r, n := utf8.DecodeRuneInString(text[j:])
		if isWordRune(r) {
			j += n
			continue
		}
		if isJoiner(r) && j+n < len(text) {
			if next, _ := utf8.DecodeRuneInString(text[j+n:]); isWordRune(next) {
				joined = joined || r < utf8.RuneSelf && r != '\''
				j += n
				continue
			}
		}
		break
	}
	return j, joined
}

// symbolWord recognises "c++", "c#", "f#": a word of one or two ASCII
// letters followed by "++" or "#" and then no word rune.
func symbolWord(text string, i, j int) (string, int, bool) {
	if j-i > 2 || !asciiLetters(text[i:j]) {
		return "", 0, false
	}
	for _, sym := range []string{"++", "#"} {
		end := j + len(sym)
		if !strings.HasPrefix(text[j:], sym) {
			continue
		}
		if end < len(text) {
			if r, _ := utf8.DecodeRuneInString(text[end:]); isWordRune(r) || isCJK(r) {
				return "", 0, false
			}
		}
		return strings.ToLower(text[i:j]) + sym, end, true
	}
	return "", 0, false
}

// appendWord appends the terms of one scanned word: the whole of a joined
// or camel-case word (unstemmed, an identifier) and then each of its parts,
// a camel-case part as its own whole and its humps.
func appendWord(dst []string, raw string, joined bool) []string {
	camel := hasCamel(raw)
	w := normalizeWord(raw)
	if !joined && !camel {
		return appendPart(dst, w)
	}
	whole := strings.TrimSuffix(w, "'s")
	if len(whole) <= maxTermBytes && !stopwords[whole] {
		dst = append(dst, whole)
	}
	if !joined {
		return appendHumps(dst, raw)
	}
	// Joiners are ASCII, so raw splits where its lowercase form does.
	for raw != "" {
		k := strings.IndexAny(raw, joiners)
		part := raw
		if k >= 0 {
			part, raw = raw[:k], raw[k+1:]
		} else {
			raw = ""
		}
		if hasCamel(part) {
			dst = appendWholePart(dst, normalizeWord(part))
			dst = appendHumps(dst, part)
		} else {
			dst = appendPart(dst, normalizeWord(part))
		}
	}
	return dst
}

// appendWholePart appends an identifier part unstemmed, unless it is a
// stopword or too long.
func appendWholePart(dst []string, w string) []string {
	w = strings.TrimSuffix(w, "'s")
	if w == "" || len(w) > maxTermBytes || stopwords[w] {
		return dst
	}
	return append(dst, w)
}

// hasCamel reports an ASCII lowercase letter or digit followed by an
// uppercase letter ("getUserName", "utf8Decode", "JavaScript"), or an
// uppercase run followed by a capitalised word ("HTTPServer").
func hasCamel(w string) bool {
	for i := 1; i < len(w); i++ {
		if isCamelBoundary(w, i) {
			return true
		}
	}
	return false
}

// isCamelBoundary reports whether a camel-case hump starts at byte i of w.
func isCamelBoundary(w string, i int) bool {
	c := w[i]
	if c < 'A' || c > 'Z' {
		return false
	}
	p := w[i-1]
	if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' {
		return true
	}
	return p >= 'A' && p <= 'Z' && i+1 < len(w) && w[i+1] >= 'a' && w[i+1] <= 'z'
}

// appendHumps appends the parts of a camel-case word (no joiners):
// "getUserName" gives get, user, name; "HTTPServer" http, server.
func appendHumps(dst []string, raw string) []string {
	start := 0
	for i := 1; i < len(raw); i++ {
		if isCamelBoundary(raw, i) {
			dst = appendPart(dst, normalizeWord(raw[start:i]))
			start = i
		}
	}
	return appendPart(dst, normalizeWord(raw[start:]))
}

// appendPart appends a plain word (lowercase, no joiners but apostrophes)
// unless it is a stopword, a single Latin letter or too long; English words
// are stemmed.
func appendPart(dst []string, w string) []string {
	switch {
	case w == "", len(w) > maxTermBytes, stopwords[w]:
		return dst
	case len(w) == 1 && w[0] >= 'a' && w[0] <= 'z':
		return dst
	}
	term := w
	switch {
	case asciiLetters(w):
		term = cachedStem(w)
	case strings.IndexByte(w, '\'') >= 0:
		// Not English to the stemmer, but a possessive is still one.
		term = strings.TrimSuffix(w, "'s")
	}
	if term != w && (term == "" || stopwords[term]) { // "ours" stems to "our"
		return dst
	}
	return append(dst, term)
}

// appendBigrams appends the overlapping character pairs of a CJK run, or
// the run itself when it is one character.
func appendBigrams(dst []string, run string) []string {
	_, first := utf8.DecodeRuneInString(run)
	if first == len(run) {
		return append(dst, run)
	}
	for i := 0; i < len(run); {
		_, a := utf8.DecodeRuneInString(run[i:])
		if i+a >= len(run) {
			break
		}
		_, b := utf8.DecodeRuneInString(run[i+a:])
		dst = append(dst, run[i:i+a+b])
		i += a
	}
	return dst
}

// normalizeWord lowercases a word and straightens its apostrophes, without
// allocating when it is already plain lowercase ASCII.
func normalizeWord(raw string) string {
	for i := 0; i < len(raw); i++ {
		if raw[i] >= utf8.RuneSelf {
			w := strings.ToLower(raw)
			if strings.ContainsAny(w, "\u2019\u02bc") {
				w = strings.NewReplacer("\u2019", "'", "\u02bc", "'").Replace(w)
			}
			return w
		}
	}
	return strings.ToLower(raw)
}

// isWordRune reports letters, digits and combining marks outside CJK.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !isCJK(r)
}

func isJoiner(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02bc' || r < utf8.RuneSelf && strings.IndexByte(joiners, byte(r)) >= 0
}

// isCJK reports the scripts written without spaces between words (and
// Hangul, which Lucene's CJK analyzer also bigrams).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == '\u30fc' || r == '\u3005' // prolonged sound mark, iteration mark
}

// asciiLetters reports a non-empty word of ASCII letters and apostrophes.
func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '\'') {
			return false
		}
	}
	return w != ""
}
