package filter

import (
	"math"
	"strings"
)

// Thresholds for credentials without a known prefix.
const (
	minRandomLen   = 24  // shorter strings are too often ids and words
	minHexLen      = 32  // 128 bits
	minEntropyBits = 3.4 // Shannon bits per character; English words and slugs score lower
)

// randomKind classifies a string without a provider prefix.
type randomKind uint8

const (
	notRandom randomKind = iota
	randomHex
	randomText
)

// classifyRandom reports whether p looks like a generated credential: long,
// from a base64/hex alphabet, mixing character classes often, with high
// entropy, and not a slug of words ("k8s-prod-cluster-eu-west-1") or a UUID.
func classifyRandom(p string) randomKind {
	p = strings.TrimRight(p, "=")
	if len(p) < minRandomLen {
		return notRandom
	}
	hex, digits, letters := true, 0, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letters++
		case c >= 'g' && c <= 'z' || c >= 'G' && c <= 'Z':
			letters++
			hex = false
		case c == '-' || c == '_' || c == '+' || c == '/':
			hex = false
		default:
			return notRandom
		}
	}
	if hex {
		if len(p) >= minHexLen && digits > 0 && letters > 0 && !sameCaseMixed(p) {
			return randomHex
		}
		return notRandom
	}
	if digits < 2 || letters < 2 || isUUID(p) || slugLike(p) {
		return notRandom
	}
	if transitions(p)*5 < len(p) || entropy(p) < minEntropyBits {
		return notRandom
	}
	return randomText
}

// sameCaseMixed: hex in mixed case ("DeadBeef…") is more likely a word mash.
func sameCaseMixed(p string) bool {
	return strings.ToLower(p) != p && strings.ToUpper(p) != p
}

// isUUID matches 8-4-4-4-12 hex groups: identifiers, not secrets by themselves.
func isUUID(p string) bool {
	if len(p) != 36 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// slugLike: every part between - _ / + is a word, a short number or a
// word with a version ("node18", "v2", "10am").
func slugLike(p string) bool {
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' || r == '/' || r == '+' }) {
		if !wordy(seg) {
			return false
		}
	}
	return true
}

func wordy(s string) bool {
	if len(s) <= 3 {
		return true
	}
	i := 0
	if s[0] >= 'A' && s[0] <= 'Z' {
		i = 1
	}
	lower, upper, digits := 0, 0, 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c >= 'a' && c <= 'z':
			if digits > 0 {
				return len(s)-j <= 3 && upper == 0 && lower == 0 // "10am", "3rd"
			}
			lower++
		case c >= 'A' && c <= 'Z':
			if digits > 0 || lower > 0 {
				return false
			}
			upper++
		default:
			digits++
		}
	}
	switch {
	case lower > 0 && upper > 0:
		return false
	case digits == 0:
		return upper == 0 || len(s) <= 10 // "word", "Word", "ACRONYM"
	case lower == 0 && upper == 0:
		return digits <= 8 // "2024"
	}
	return digits <= 4 // "node18", "v2"
}

// transitions counts neighbours of different classes (lower, upper, digit,
// symbol): random text changes class about every other character.
func transitions(p string) int {
	n := 0
	for i := 1; i < len(p); i++ {
		if class(p[i]) != class(p[i-1]) {
			n++
		}
	}
	return n
}

func class(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 0
	case c >= 'A' && c <= 'Z':
		return 1
	case c >= '0' && c <= '9':
		return 2
	}
	return 3
}

// entropy is the Shannon entropy of p in bits per character.
func entropy(p string) float64 {
	var counts [256]int
	for i := 0; i < len(p); i++ {
		counts[p[i]]++
	}
	h, n := 0.0, float64(len(p))
	for _, c := range counts {
		if c > 0 {
			q := float64(c) / n
			h -= q * math.Log2(q)
		}
	}
	return h
}
