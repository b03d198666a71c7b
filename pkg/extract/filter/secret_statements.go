package filter

import "strings"

// statements finds credentials given by name: "password is X",
// "API_KEY=X", "X is my password." The patterns run on an ASCII-lowercased
// copy (same offsets) and the values are read from the text itself.
func (s *secrets) statements(text string) secretHit {
	low := asciiLower(text)
	sub := func(m []int, i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return text[m[2*i]:m[2*i+1]]
	}
	for _, m := range s.assign.FindAllStringSubmatchIndex(low, -1) {
		if credentialValue(strings.ToLower(sub(m, 1)), sub(m, 2), strings.TrimSpace(sub(m, 3))) {
			return secretHit{"credential in a statement", trimValue(sub(m, 2))}
		}
	}
	for _, m := range s.ident.FindAllStringSubmatchIndex(low, -1) {
		name := strings.ToLower(sub(m, 1))
		if hasAny(name, "max", "min", "limit", "count", "num", "budget", "usage", "ttl", "expir", "length", "len",
			"size", "url", "uri", "endpoint", "path", "file", "type", "name", "env", "var", "header", "policy") ||
			strings.HasSuffix(name, "tokens") {
			continue // max_tokens: 4096, token_url: https://…, secret_name: prod-db
		}
		if credentialValue(name, sub(m, 2), "") {
			return secretHit{"credential in an assignment", trimValue(sub(m, 2))}
		}
	}
	for _, m := range s.reversed.FindAllStringSubmatchIndex(low, -1) {
		if credentialValue(strings.ToLower(sub(m, 2)), sub(m, 1), "") {
			return secretHit{"credential in a statement", trimValue(sub(m, 1))}
		}
	}
	return secretHit{}
}

// asciiLower lowercases ASCII letters only, so offsets stay the same.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
