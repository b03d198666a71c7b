package filter

import "strings"

// stem is a light English stemmer: plural and third-person -s, -ing, -ed
// and a final -e, enough for "prefers"/"prefer"/"preferred" and
// "committing"/"commit" to meet. Both sides of a comparison go through it,
// so an odd stem ("spac" for "space") is harmless as long as it is
// consistent. Only lowercase ASCII words are stemmed.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	n := len(w)
	switch {
	case n <= 3:
	case strings.HasSuffix(w, "ies") && n > 4:
		w = w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case strings.HasSuffix(w, "es") && esPlural(w[:n-2]):
		w = w[:n-2]
	case w[n-1] == 's' && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case strings.HasSuffix(w, "ying") && n > 5:
		w = w[:n-3] // "trying" → "try"
	case strings.HasSuffix(w, "ing") && hasVowel(w[:n-3]):
		w = undouble(w[:n-3])
	case strings.HasSuffix(w, "ied") && n > 4:
		w = w[:n-3] + "y"
	case strings.HasSuffix(w, "ed") && hasVowel(w[:n-2]):
		w = undouble(w[:n-2])
	}
	if n = len(w); n > 2 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// esPlural: "-es" is a suffix after s, x, z, ch and sh ("pushes", "boxes").
func esPlural(base string) bool {
	return strings.HasSuffix(base, "s") || strings.HasSuffix(base, "x") || strings.HasSuffix(base, "z") ||
		strings.HasSuffix(base, "ch") || strings.HasSuffix(base, "sh")
}

// hasVowel: a stem must keep a vowel and two letters ("string", "red" stay).
func hasVowel(s string) bool {
	if len(s) < 2 {
		return false
	}
	return strings.ContainsAny(s, "aeiouy")
}

// undouble drops a doubled final consonant ("committ" → "commit"), but
// not l, s or z ("fall", "pass", "buzz").
func undouble(s string) string {
	n := len(s)
	if n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}
