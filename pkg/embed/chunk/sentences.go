package chunk

import (
	"unicode"
	"unicode/utf8"
)

// piece is a run of text the chunker never splits: a sentence, or a
// word-aligned part of a sentence longer than the chunk limit.
type piece struct {
	start, end int // byte offsets
	runes      int
}

// pieces cuts text into sentences, and sentences longer than max characters
// into word-aligned parts, so every piece has at most max characters. The
// pieces cover text end to end.
func pieces(text string, max int) []piece {
	var out []piece
	start := 0
	for _, end := range sentenceEnds(text) {
		if n := utf8.RuneCountInString(text[start:end]); n <= max {
			out = append(out, piece{start: start, end: end, runes: n})
			start = end
			continue
		}
		for start < end {
			c := start + cut(text[start:end], max)
			out = append(out, piece{start: start, end: c, runes: utf8.RuneCountInString(text[start:c])})
			start = c
		}
	}
	return out
}

// sentenceEnds returns the byte offset just past each sentence; the last is
// len(text). A sentence ends after terminal punctuation (. ! ? …) followed by
// whitespace, after CJK terminal punctuation (。！？), which needs no
// whitespace, or at a blank line. Closing quotes and brackets and the
// whitespace that follow belong to the sentence they close, so the next one
// starts at its first visible character.
func sentenceEnds(text string) []int {
	var ends []int
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case isTerminal(r) || isCJKTerminal(r):
			j := skip(text, i+n, func(r rune) bool { return isTerminal(r) || isCJKTerminal(r) || isCloser(r) })
			if next, _ := utf8.DecodeRuneInString(text[j:]); isCJKTerminal(r) || j == len(text) || unicode.IsSpace(next) {
				j = skip(text, j, unicode.IsSpace)
				ends = append(ends, j)
			}
			i = j
		case r == '\n':
			j := skip(text, i, unicode.IsSpace)
			if newlines(text[i:j]) >= 2 {
				ends = append(ends, j)
			}
			i = j
		default:
			i += n
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(text) {
		ends = append(ends, len(text))
	}
	return ends
}

func skip(text string, i int, f func(rune) bool) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !f(r) {
			break
		}
		i += n
	}
	return i
}

func newlines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}

func isTerminal(r rune) bool {
	return r == '.' || r == '!' || r == '?' || r == '…'
}

// isCJKTerminal covers the ideographic full stop, fullwidth ! ? . and the
// halfwidth ideographic full stop.
func isCJKTerminal(r rune) bool {
	return r == '。' || r == '！' || r == '？' || r == '．' || r == '｡'
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '」', '』', '）', '】', '》', '〉', '〕', '］', '｝':
		return true
	}
	return false
}

// isClause is punctuation that ends a clause: a better place to cut an
// over-long sentence than any other space.
func isClause(r rune) bool {
	switch r {
	case ',', ';', ':', '—', '–', '，', '、', '；', '：':
		return true
	}
	return false
}

// isCJK reports scripts written without spaces between words, where a
// break between any two characters is a word boundary, and CJK punctuation.
func isCJK(r rune) bool {
	if r < 0x2e80 { // below the CJK blocks: skip the table lookups
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0x3000 && r <= 0x303f) || // CJK symbols and punctuation
		(r >= 0xff00 && r <= 0xffef) // halfwidth and fullwidth forms
}
