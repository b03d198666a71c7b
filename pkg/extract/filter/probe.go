package filter

import "unicode/utf8"

// Characters whose presence gates a detector.
const (
	hasLT       uint16 = 1 << iota // <
	hasBracket                     // [
	hasBang                        // !
	hasBrace                       // {
	hasPercent                     // %
	hasColon                       // :
	hasHash                        // #
	hasNewline                     // \n (in the raw text)
	hasDash                        // -
	hasNonASCII                    // any rune ≥ 0x80
	hasEquals                      // =
)

// Byte classes for the probe's single pass.
const (
	clsBase64 uint8 = 1 << iota // A-Z a-z 0-9 + / - _ =
	clsDelim                    // ends a token (space, quotes, brackets)
	clsDigit
	clsSpecial // one of the characters with a has* flag
)

// byteClass is the class of every byte.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if isBase64Char(b) {
			t[c] |= clsBase64
		}
		if isTokenDelim(rune(b)) {
			t[c] |= clsDelim
		}
		if b >= '0' && b <= '9' {
			t[c] |= clsDigit
		}
		if specialFlag(b) != 0 || b >= utf8.RuneSelf {
			t[c] |= clsSpecial
		}
	}
	return t
}()

func specialFlag(c byte) uint16 {
	switch c {
	case '<':
		return hasLT
	case '[':
		return hasBracket
	case '!':
		return hasBang
	case '{':
		return hasBrace
	case '%':
		return hasPercent
	case ':':
		return hasColon
	case '#':
		return hasHash
	case '-':
		return hasDash
	case '=':
		return hasEquals
	}
	if c >= utf8.RuneSelf {
		return hasNonASCII
	}
	return 0
}

// probe is a text seen once for every detector: its word stream, which
// special characters it holds, and its longest runs, so that most facts
// skip most checks.
type probe struct {
	text   string // cleaned, one line
	raw    string // as given, with its lines
	s      stream
	flags  uint16
	b64Run int // longest run of base64 characters
	tokRun int // longest run between token delimiters
	digits int
}

func newProbe(text, raw string, triggers *triggerIndex) probe {
	p := probe{text: text, raw: raw, s: newStream(text, triggers)}
	b64, tok := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		cls := byteClass[c]
		if cls&clsSpecial != 0 {
			p.flags |= specialFlag(c)
		}
		if cls&clsDigit != 0 {
			p.digits++
		}
		if cls&clsBase64 != 0 {
			if b64++; b64 > p.b64Run {
				p.b64Run = b64
			}
		} else {
			b64 = 0
		}
		if cls&clsDelim != 0 {
			tok = 0
		} else if tok++; tok > p.tokRun {
			p.tokRun = tok
		}
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\n' {
			p.flags |= hasNewline
			break
		}
	}
	return p
}

func (p *probe) has(f uint16) bool { return p.flags&f != 0 }
