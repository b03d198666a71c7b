package temporal

import (
	"unicode"
	"unicode/utf8"
)

// maxParseBytes bounds the text Parse and Mentions read: a query is at most
// a few thousand characters, and a memory's time words are near its start.
const maxParseBytes = 4096

// token is one word, number or punctuation mark of a text.
type token struct {
	s       string // lower case
	num     int    // value of a leading number ("7", "7th", "2023"), -1 when none
	start   int32  // byte offset in the text
	end     int32
	digits  int8 // digits of that number
	ord     bool // the number has an ordinal suffix ("7th")
	capital bool // the word began with an upper-case letter
	punct   bool
}

// isNum says the token is a plain number (no suffix but an ordinal one).
func (t token) isNum() bool { return t.num >= 0 }

// tokenize splits text into words (letters and digits, with inner
// apostrophes), and single punctuation marks; spaces separate.
func tokenize(text string) []token {
	if len(text) > maxParseBytes {
		text = text[:maxParseBytes]
	}
	out := make([]token, 0, len(text)/5+1)
	// ASCII text is lowered once and its words are slices of the copy;
	// other text lowers word by word.
	lower, ascii := asciiLower(text)
	buf := make([]byte, 0, 32)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			start := i
			capital := unicode.IsUpper(r)
			for i < len(text) {
				r, size = utf8.DecodeRuneInString(text[i:])
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					i += size
					continue
				}
				// An apostrophe between letters stays in the word ("don't").
				if (r == '\'' || r == '’') && i+size < len(text) {
					next, _ := utf8.DecodeRuneInString(text[i+size:])
					if unicode.IsLetter(next) {
						i += size
						continue
					}
				}
				break
			}
			var w string
			if ascii {
				w = lower[start:i]
			} else {
				buf = appendLower(buf[:0], text[start:i])
				w = string(buf)
			}
			out = append(out, word(w, capital, start, i))
		case r == '-' || r == '/' || r == ',' || r == '.' || r == ':' || r == '?' || r == '!' || r == ';' || r == '\'' || r == '(' || r == ')' || r == '–':
			out = append(out, token{s: text[i : i+size], num: -1, punct: true, start: int32(i), end: int32(i + size)})
			i += size
		default:
			i += size
		}
	}
	return out
}

// asciiLower lowers an ASCII text in one copy; ok is false for any other.
func asciiLower(text string) (string, bool) {
	b := make([]byte, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b), true
}

func appendLower(buf []byte, s string) []byte {
	for _, r := range s {
		if r == '’' {
			r = '\''
		}
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	return buf
}

// word makes a word token, reading a leading number and ordinal suffix.
func word(s string, capital bool, start, end int) token {
	t := token{s: s, num: -1, capital: capital, start: int32(start), end: int32(end)}
	n, d := 0, 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		if d < 9 {
			n = n*10 + int(s[d]-'0')
		}
		d++
	}
	if d == 0 || d > 9 {
		return t
	}
	switch s[d:] {
	case "":
		t.num, t.digits = n, int8(d)
	case "st", "nd", "rd", "th":
		t.num, t.digits, t.ord = n, int8(d), true
	}
	return t
}
