package samefact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// field is one whitespace-separated word of a text, without the
// punctuation around it.
type field struct {
	raw   string // as written, trimmed
	lower string // lowercased, straight apostrophes
	// start marks the first word of a sentence, a line or a list item,
	// where an ordinary word is capitalised too.
	start bool
}

// leading and trailing are the punctuation trimmed off a word; "$", "%",
// "/", "~", "@" and "#" stay, they belong to a detail.
const (
	leading  = "\"'`([{<“‘«*_>"
	trailing = "\"'`)]}>”’»*_,;:.!?…"
)

// splitFields splits text into fields.
func splitFields(text string) []field {
	var out []field
	for _, line := range strings.Split(text, "\n") {
		start := true
		for i, w := range strings.Fields(line) {
			if i == 0 && isBullet(w) {
				continue
			}
			raw := strings.TrimRight(strings.TrimLeft(w, leading), trailing)
			if raw != "" {
				out = append(out, field{raw: raw, lower: lowerWord(raw), start: start})
			}
			start = endsSentence(w)
		}
	}
	return out
}

// endsSentence reports a word after which a sentence starts: it ends in
// . ! ? or : (closing quotes and brackets aside).
func endsSentence(w string) bool {
	w = strings.TrimRight(w, "\"')]}”’»*")
	r, _ := utf8.DecodeLastRuneInString(w)
	return r == '.' || r == '!' || r == '?' || r == ':' || r == '…'
}

// isBullet reports a list marker at the start of a line: "-", "*", "•",
// "1." or "2)".
func isBullet(w string) bool {
	switch w {
	case "-", "*", "•", "–", "—", "+":
		return true
	}
	d := strings.TrimRight(w, ".)")
	return len(d) < len(w) && len(d) > 0 && len(d) <= 2 && allDigits(d)
}

// lowerWord lowercases a word and straightens its apostrophes.
func lowerWord(w string) string {
	return strings.NewReplacer("\u2019", "'", "\u02bc", "'").Replace(strings.ToLower(w))
}

// trimPossessive drops a trailing "'s" or "'".
func trimPossessive(w string) string {
	if s, ok := strings.CutSuffix(w, "'s"); ok {
		return s
	}
	return strings.TrimSuffix(w, "'")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }
