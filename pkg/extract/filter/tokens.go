package filter

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tflag describes a token.
type tflag uint16

const (
	fStop       tflag = 1 << iota // a stop word: not counted by grounding
	fNum                          // a number: must match exactly
	fNeg                          // a negator ("not", "don't", "never")
	fNegated                      // governed by a negator ("like" in "don't like")
	fBreak                        // clause punctuation comes before it
	fSentence                     // it starts a sentence
	fUpper                        // its first letter is upper case
	fInnerUpper                   // an upper-case letter after the first ("iPhone", "gRPC", "API")
	fContrast                     // "instead", "over", "rather", "dislike"…
	fGlued                        // no gap before it ("5th", "v2")
)

// token is a word as grounding compares it: lowercased, stemmed, numbers
// and number words as digits.
type token struct {
	key   string
	raw   string // the word as written, for messages
	flags tflag
}

func (t token) is(f tflag) bool { return t.flags&f != 0 }

// tokenize appends the tokens of text to dst.
func tokenize(text string, dst []token) []token {
	var gap tflag = fSentence
	glued := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		kind := runeKind(r)
		if kind == kGap {
			gap |= gapFlags(r, text, i+n)
			glued = false
			i += n
			continue
		}
		start := i
		end := scanWord(text, i, kind)
		f := gap
		if glued {
			f |= fGlued
		}
		dst = appendWord(dst, text[start:end], kind, f)
		gap, glued = 0, true
		i = end
	}
	markNegated(dst)
	return dst
}

type kind uint8

const (
	kGap kind = iota
	kLetter
	kDigit
	kIdeograph // Han, Hiragana, Katakana: one token per character
)

func runeKind(r rune) kind {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			return kLetter
		case r >= '0' && r <= '9':
			return kDigit
		}
		return kGap
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
		return kIdeograph
	case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
		return kLetter
	case unicode.IsDigit(r):
		return kDigit
	}
	return kGap
}

// gapFlags says what a gap character does to the next token.
func gapFlags(r rune, text string, next int) tflag {
	switch r {
	case '.', '!', '?':
		// "file.go" and "e.g." do not end a sentence; ". " does.
		if next >= len(text) || text[next] == ' ' || text[next] == '"' || text[next] == ')' {
			return fBreak | fSentence
		}
		return fBreak
	case ':', ';', '"', '“', '”', '(', '[', '{':
		return fBreak | fSentence
	case ',', ')', ']', '}', '—', '–':
		return fBreak
	}
	return 0
}

// scanWord returns the end of the word starting at i: letters with inner
// apostrophes, or digits with inner . , : ("3.14", "1,000", "10:30").
func scanWord(text string, i int, k kind) int {
	_, n := utf8.DecodeRuneInString(text[i:])
	i += n
	if k == kIdeograph {
		return i
	}
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		rk := runeKind(r)
		switch {
		case rk == k:
			i += n
			continue
		case k == kLetter && isApostrophe(r) && i+n < len(text):
			if nr, _ := utf8.DecodeRuneInString(text[i+n:]); runeKind(nr) == kLetter {
				i += n
				continue
			}
		case k == kDigit && (r == '.' || r == ',' || r == ':') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			i++
			continue
		}
		break
	}
	return i
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' || r == '‘' }

// appendWord normalises one word into a token.
func appendWord(dst []token, raw string, k kind, f tflag) []token {
	if k == kIdeograph {
		return append(dst, token{raw: raw, key: raw, flags: f})
	}
	if k == kDigit {
		w := raw
		if strings.IndexByte(w, ',') >= 0 {
			w = strings.ReplaceAll(w, ",", "")
		}
		return append(dst, token{raw: raw, key: w, flags: f | fNum})
	}
	var buf [48]byte
	low, upper, ascii := lowerASCII(raw, buf[:0])
	var w string
	if ascii {
		f |= upper
		if f&fGlued != 0 && len(dst) > 0 && dst[len(dst)-1].is(fNum) && isOrdinal(low) { // "5th"
			return append(dst, token{raw: raw, key: "", flags: f | fStop})
		}
		// The lookup converts without allocating; only kept words are copied.
		if info, ok := wordTable[string(low)]; ok {
			return appendInfo(dst, raw, info, f)
		}
		if upper == 0 {
			w = raw
		} else {
			w = string(low)
		}
	} else {
		w, upper = lowerWord(raw)
		f |= upper
		if info, ok := wordTable[w]; ok {
			return appendInfo(dst, raw, info, f)
		}
	}
	if strings.IndexByte(w, '\'') >= 0 {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'") // possessive
		if info, ok := wordTable[w]; ok {
			return appendInfo(dst, raw, info, f)
		}
		w = strings.ReplaceAll(w, "'", "")
		if info, ok := wordTable[w]; ok {
			return appendInfo(dst, raw, info, f)
		}
	}
	return append(dst, token{raw: raw, key: stem(w), flags: f})
}

// appendInfo appends a word the table knows.
func appendInfo(dst []token, raw string, info wordInfo, f tflag) []token {
	f |= info.flags
	switch {
	case f&(fStop|fNum) != 0:
		return append(dst, token{raw: raw, key: info.base, flags: f})
	case info.stem != "":
		return append(dst, token{raw: raw, key: info.stem, flags: f})
	}
	return append(dst, token{raw: raw, key: info.base, flags: f})
}

func isOrdinal(w []byte) bool {
	return len(w) == 2 && (w[0] == 's' && w[1] == 't' || w[0] == 'n' && w[1] == 'd' || w[0] == 'r' && w[1] == 'd' || w[0] == 't' && w[1] == 'h')
}

// lowerASCII lowercases an ASCII word into buf and reports its case; ascii
// is false (and low unset) for any other word.
func lowerASCII(raw string, buf []byte) (low []byte, upper tflag, ascii bool) {
	if len(raw) > cap(buf) {
		return nil, 0, false
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= utf8.RuneSelf:
			return nil, 0, false
		case c >= 'A' && c <= 'Z':
			if i == 0 {
				upper |= fUpper
			} else {
				upper |= fInnerUpper
			}
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, upper, true
}

// markNegated flags the word each negator governs: the next word in the
// same clause, stepping over fillers ("don't ever really like"). A "no"
// closed by punctuation ("No, keep it short") governs nothing.
func markNegated(toks []token) {
	for i := range toks {
		if !toks[i].is(fNeg) {
			continue
		}
		for j := i + 1; j < len(toks) && j <= i+4; j++ {
			t := &toks[j]
			if t.is(fBreak) {
				break
			}
			if polaritySkip[t.key] {
				continue
			}
			if !t.is(fNeg) {
				t.flags |= fNegated
			}
			break
		}
	}
}

// lowerWord lowercases any word, folds apostrophes to ' and reports its case.
func lowerWord(raw string) (string, tflag) {
	var f tflag
	var b strings.Builder
	b.Grow(len(raw))
	first := true
	for _, r := range raw {
		if isApostrophe(r) {
			r = '\''
		} else if unicode.IsUpper(r) {
			if first {
				f |= fUpper
			} else {
				f |= fInnerUpper
			}
			r = unicode.ToLower(r)
		}
		first = false
		b.WriteRune(r)
	}
	return b.String(), f
}
