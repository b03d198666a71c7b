package filter

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// maxMarks bounds a run of combining marks: more only stacks glyphs
// ("Zalgo" text) and can hide what a line says.
const maxMarks = 3

// cleaned is text made fit to store: one line, single spaces, no control,
// format (zero-width, bidi, tag) or invisible filler characters.
type cleaned struct {
	text   string
	hidden int // invisible characters that can carry text (tag and variation-selector smuggling)
}

// clean strips what memory.CleanText strips and more: every Unicode format
// character (Cf: zero-width spaces and joiners, bidi controls, word joiner,
// soft hyphen, BOM, tag characters), variation selectors used to smuggle
// bytes, Hangul fillers, and extra combining marks; and it folds every
// whitespace run, newlines included, into one space.
func clean(s string) cleaned {
	if isPlain(s) {
		return cleaned{text: s}
	}
	var b strings.Builder
	b.Grow(len(s))
	var c cleaned
	space, marks := false, 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			continue
		case unicode.IsSpace(r) || r == '\u2800': // braille blank reads as a space
			space = true
			continue
		case r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF:
			c.hidden++
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || isFiller(r):
			continue
		case unicode.Is(unicode.Mn, r):
			if marks++; marks > maxMarks {
				continue
			}
		default:
			marks = 0
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	c.text = b.String()
	return c
}

// isPlain reports printable ASCII with single inner spaces: most facts, and
// they need no copy.
func isPlain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// isFiller: letters that render as nothing (Hangul fillers, Khmer vowel
// inherents), used to pad or hide text.
func isFiller(r rune) bool {
	switch r {
	case '\u115f', '\u1160', '\u3164', '\uffa0', '\u17b4', '\u17b5', '\u180e':
		return true
	}
	return false
}

// cut shortens s to at most n runes, at a word boundary when one is near.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for i := range s {
		if n == 0 {
			end = i
			break
		}
		n--
	}
	if sp := strings.LastIndexByte(s[:end], ' '); sp > end*3/4 {
		end = sp
	}
	return strings.TrimRight(s[:end], " ")
}

// cleanKey normalises a key (memory.NormalizeKey) within memory.MaxKeyChars.
func cleanKey(k string) string {
	k = memory.NormalizeKey(clean(k).text)
	if utf8.RuneCountInString(k) > memory.MaxKeyChars {
		n, end := 0, len(k)
		for i := range k {
			if n == memory.MaxKeyChars {
				end = i
				break
			}
			n++
		}
		k = strings.TrimRight(k[:end], "-/")
	}
	return k
}

// cleanTags normalises tags (memory.NormalizeTag) and drops what
// memory.CheckTags would refuse: empty, too long, repeated, past the cap.
func cleanTags(tags []string, keep func(string) bool) []string {
	var out []string
	for _, t := range tags {
		t = memory.NormalizeTag(clean(t).text)
		if t == "" || utf8.RuneCountInString(t) > memory.MaxTagChars || !keep(t) || contains(out, t) {
			continue
		}
		if out = append(out, t); len(out) == memory.MaxTags {
			break
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
