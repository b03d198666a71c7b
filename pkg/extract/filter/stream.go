package filter

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stream is text as the injection phrases see it: lowercase words with
// look-alike letters folded to ASCII ("ignоre" with a Cyrillic о,
// "ｉｇｎｏｒｅ", "𝐢𝐠𝐧𝐨𝐫𝐞", "ign0re"), single spaces, and clause punctuation
// (. , ; : ! ?) as words of its own. It starts with a space and ends with
// " . ", so every word has a space on both sides and every text ends a
// clause.
type stream struct {
	text   string
	bits   triggerBits // phrases whose trigger words occur
	spaced bool        // four one-letter words in a row ("i g n o r e")
}

// newStream builds the stream of text and ORs the trigger bits of its words.
func newStream(text string, ti *triggerIndex) stream {
	var sb strings.Builder
	sb.Grow(len(text) + 8)
	sb.WriteByte(' ')
	var bits triggerBits
	var buf [64]byte
	w := buf[:0] // the word being read
	letters, others, singles := 0, 0, 0
	spaced := false
	var last byte = ' ' // last byte written
	flush := func() {
		if len(w) == 0 {
			return
		}
		if letters > 0 && others > 0 {
			deLeet(w)
		}
		if len(w) == 1 && letters == 1 {
			if singles++; singles >= 4 {
				spaced = true
			}
		} else {
			singles = 0
		}
		if ti != nil {
			tb := ti.words[string(w)]
			bits.first |= tb.first
			bits.second |= tb.second
			bits.secret = bits.secret || tb.secret
		}
		sb.Write(w)
		sb.WriteByte(' ')
		w, letters, others, last = w[:0], 0, 0, ' '
	}
	for _, r := range text {
		r = foldRune(r)
		switch {
		case r >= 'a' && r <= 'z' || r > utf8.RuneSelf && unicode.IsLetter(r):
			letters++
			w = utf8.AppendRune(w, r)
		case r >= '0' && r <= '9' || r == '@' || r == '$':
			others++
			w = append(w, byte(r))
		case r == '\'' && len(w) > 0:
			w = append(w, '\'')
		case r == '.' || r == ',' || r == ';' || r == ':' || r == '!' || r == '?':
			flush()
			singles = 0
			if last != byte(r) { // ". . ." → "."
				sb.WriteByte(byte(r))
				sb.WriteByte(' ')
				last = byte(r)
			}
		default:
			flush()
		}
	}
	flush()
	if !isClausePunct(last) {
		sb.WriteString(". ")
	}
	return stream{text: sb.String(), bits: bits, spaced: spaced}
}

func isClausePunct(c byte) bool {
	return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?'
}

// deLeet reads digits and symbols inside a word as the letters they mimic.
func deLeet(w []byte) {
	for i, c := range w {
		switch c {
		case '0':
			w[i] = 'o'
		case '1':
			w[i] = 'i'
		case '3':
			w[i] = 'e'
		case '4', '@':
			w[i] = 'a'
		case '5', '$':
			w[i] = 's'
		case '7':
			w[i] = 't'
		case '8':
			w[i] = 'b'
		}
	}
}

// foldRune lowercases r and maps look-alikes to ASCII: fullwidth forms,
// mathematical alphanumerics, circled letters and the Cyrillic and Greek
// letters that look Latin.
func foldRune(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		if r == '`' {
			return '\''
		}
		return r
	case r == '’' || r == '‘' || r == 'ʼ':
		return '\''
	case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII
		return foldRune(r - 0xFEE0)
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical letters, 52 per style
		if k := (r - 0x1D400) % 52; k < 26 {
			return 'a' + k
		} else {
			return 'a' + k - 26
		}
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits
		return '0' + (r-0x1D7CE)%10
	case r >= 0x24B6 && r <= 0x24CF: // Ⓐ
		return 'a' + r - 0x24B6
	case r >= 0x24D0 && r <= 0x24E9: // ⓐ
		return 'a' + r - 0x24D0
	}
	r = unicode.ToLower(r)
	if a, ok := confusables[r]; ok {
		return a
	}
	return r
}

// confusables are Cyrillic and Greek letters drawn like Latin ones.
var confusables = map[rune]rune{
	'а': 'a', 'в': 'b', 'с': 'c', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k',
	'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'ѕ': 's', 'т': 't', 'у': 'y', 'х': 'x', 'ԁ': 'd', 'ԛ': 'q',
	'ԝ': 'w', 'ɡ': 'g', 'ı': 'i', 'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v',
	'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w', 'ѵ': 'v', 'ӏ': 'l',
}
