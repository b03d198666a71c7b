package minilm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalize applies BERT's uncased normalisation in the reference order:
// drop control characters and map whitespace to a space, pad CJK
// ideographs with spaces, strip accents (NFD, then drop Mn), lowercase.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	ascii := true
	for _, r := range s {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
			continue
		case isWhitespace(r):
			b.WriteByte(' ')
		case isChinese(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			ascii = false
		default:
			if r >= utf8.RuneSelf {
				ascii = false
			}
			b.WriteRune(r)
		}
	}
	cleaned := b.String()
	if ascii {
		return strings.ToLower(cleaned)
	}
	decomposed := norm.NFD.String(cleaned)
	var out strings.Builder
	out.Grow(len(decomposed))
	for _, r := range decomposed {
		if isNonspacingMark(r) {
			continue
		}
		out.WriteRune(unicode.ToLower(r))
	}
	return out.String()
}

// splitWords is BERT's pre-tokenizer: whitespace separates words and is
// dropped; each punctuation character becomes a word of its own. It calls
// yield with substrings of s and stops when yield returns false.
func splitWords(s string, yield func(word string) bool) {
	start := -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWhitespace(r):
			if start >= 0 && !yield(s[start:i]) {
				return
			}
			start = -1
		case isPunct(r):
			if start >= 0 && !yield(s[start:i]) {
				return
			}
			start = -1
			if !yield(s[i : i+size]) {
				return
			}
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	if start >= 0 {
		yield(s[start:])
	}
}
