package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanText strips control characters (keeping newlines and tabs as spaces
// where they would glue words), collapses runs of spaces on each line, trims
// blank lines at both ends and drops invalid UTF-8 (Clanker's cleaning).
func CleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	newlines := 0
	for _, r := range s {
		switch {
		case r == '\n':
			newlines++
			space = false
			continue
		case r == '\t' || unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || r == '\u200b' || r == '\ufeff':
			continue
		}
		if b.Len() > 0 {
			if newlines > 0 {
				// Keep paragraph structure, at most one blank line.
				b.WriteString(strings.Repeat("\n", min(newlines, 2)))
			} else if space {
				b.WriteByte(' ')
			}
		}
		newlines, space = 0, false
		b.WriteRune(r)
	}
	return b.String()
}

// NormalizeKey lowercases a key, turns underscores and spaces into hyphens,
// collapses repeated hyphens and slashes and trims them at both ends (Nebo):
// "  My--Key//path " → "my-key/path".
func NormalizeKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	var b strings.Builder
	b.Grow(len(k))
	var last rune
	for _, r := range k {
		switch {
		case r == '_' || unicode.IsSpace(r):
			r = '-'
		case unicode.IsControl(r):
			continue
		}
		if (r == '-' || r == '/') && r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return strings.Trim(b.String(), "-/")
}

// NormalizeTag lowercases a tag and trims it.
func NormalizeTag(t string) string {
	return strings.ToLower(strings.TrimSpace(CleanText(t)))
}
