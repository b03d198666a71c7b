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
		sep, quoted, v := sub(m, 2), sub(m, 3) != "", sub(m, 4)
		if !quoted && codeValue(v, isOperator(sep)) {
			continue
		}
		if credentialValue(strings.ToLower(sub(m, 1)), v, strings.TrimSpace(sub(m, 5))) {
			return secretHit{"credential in a statement", trimValue(v)}
		}
	}
	for _, m := range s.ident.FindAllStringSubmatchIndex(low, -1) {
		name := strings.ToLower(sub(m, 1))
		if hasAny(name, "max", "min", "limit", "count", "num", "budget", "usage", "ttl", "expir", "length", "len",
			"size", "url", "uri", "endpoint", "path", "file", "type", "name", "env", "var", "header", "policy") ||
			strings.HasSuffix(name, "tokens") {
			continue // max_tokens: 4096, token_url: https://…, secret_name: prod-db
		}
		if quoted, v := sub(m, 2) != "", sub(m, 3); (quoted || !codeValue(v, true)) && credentialValue(name, v, "") {
			return secretHit{"credential in an assignment", trimValue(v)}
		}
	}
	for _, m := range s.reversed.FindAllStringSubmatchIndex(low, -1) {
		if credentialValue(strings.ToLower(sub(m, 2)), sub(m, 1), "") {
			return secretHit{"credential in a statement", trimValue(sub(m, 1))}
		}
	}
	return secretHit{}
}

// isOperator: the separator is an assignment, as code and configuration
// write them, rather than a word ("is", "set to").
func isOperator(sep string) bool {
	switch sep {
	case "=", ":=", ":", "->", "=>":
		return true
	}
	return false
}

// codeValue: an unquoted value that reads as code, not as a credential: a
// call or an index ("os.Getenv(", "request.form["), a selector chain
// ("process.env.API_KEY", "settings.SECRET", "std::env::var"), and, after an
// assignment operator, a variable name in snake or camel case
// ("raw_password", "secretKey"). Credentials are quoted in code, or are
// random strings with digits and symbols.
func codeValue(v string, operator bool) bool {
	v = strings.TrimRight(v, ";,)")
	n := identLen(v, 0)
	if n == 0 {
		return false
	}
	parts := 1
	for n < len(v) {
		switch {
		case v[n] == '(' || v[n] == '[':
			return true // a call or an index
		case v[n] == '.' || v[n] == '-' && n+1 < len(v) && v[n+1] == '>':
			n++
			if v[n-1] == '-' {
				n++
			}
		case v[n] == ':' && n+1 < len(v) && v[n+1] == ':':
			n += 2
		default:
			return false
		}
		k := identLen(v, n)
		if k == n {
			return false
		}
		n = k
		parts++
	}
	if parts > 1 {
		return true
	}
	return operator && variableName(v)
}

// identLen returns the end of the identifier starting at i (i if none).
func identLen(v string, i int) int {
	j := i
	for j < len(v) {
		c := v[j]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > i && c >= '0' && c <= '9' {
			j++
			continue
		}
		break
	}
	return j
}

// variableName: letters in snake_case (with an underscore) or camelCase
// (lowercase first, an uppercase letter later), no digits.
func variableName(v string) bool {
	under, upper := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z':
			if i == 0 {
				return false
			}
			upper = true
		case c >= 'a' && c <= 'z':
		default:
			return false
		}
	}
	return under && strings.Trim(v, "_") != "" || upper
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
