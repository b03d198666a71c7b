package filter

import (
	"unicode"
	"unicode/utf8"
)

// compactBuf collects the lowercase letters and digits of a text with the
// word boundaries, for the compact-substring test.
type compactBuf struct {
	b      []byte
	bounds []uint8 // len(b)+1 entries: boundStart (a word starts at b[i]), boundEnd (one ends before b[i])
}

const (
	boundStart uint8 = 1 << iota
	boundEnd
)

func newCompactBuf(n int) *compactBuf {
	return &compactBuf{b: make([]byte, 0, n), bounds: make([]uint8, 1, n+1)}
}

// compactOf builds the compact form of text: its words as tokenize splits
// them, lowercased, letters and digits only, with their boundaries.
func compactOf(text string) *compactBuf {
	cb := newCompactBuf(len(text))
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		k := runeKind(r)
		if k == kGap {
			i += n
			continue
		}
		end := scanWord(text, i, k)
		cb.add(text[i:end])
		i = end
	}
	return cb
}

// add appends a word's lowercase letters and digits with its boundaries.
func (cb *compactBuf) add(word string) {
	start := len(cb.b)
	for i := 0; i < len(word); {
		c := word[i]
		if c < utf8.RuneSelf {
			i++
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				cb.b = append(cb.b, c)
				cb.bounds = append(cb.bounds, 0)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(word[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			before := len(cb.b)
			cb.b = utf8.AppendRune(cb.b, unicode.ToLower(r))
			for range len(cb.b) - before {
				cb.bounds = append(cb.bounds, 0)
			}
		}
	}
	if len(cb.b) > start {
		cb.bounds[start] |= boundStart
		cb.bounds[len(cb.b)] |= boundEnd
	}
}
