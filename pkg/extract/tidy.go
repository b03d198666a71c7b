package extract

import (
	"encoding/json"
	"strings"
)

// tidy fixes the JSON slips small local models make, outside strings:
// trailing commas, Python's True/False/None, and typographic quotes used as
// string delimiters. Text that needs none of it comes back unchanged.
func tidy(s string) string {
	if !strings.Contains(s, `"`) && strings.ContainsAny(s, "“”") {
		s = strings.NewReplacer("“", `"`, "”", `"`).Replace(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\r' || s[j] == '\t') {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue // trailing comma
			}
		case 'T', 'F', 'N':
			if w, lit := pythonLiteral(s, i); lit != "" {
				b.WriteString(lit)
				i += len(w) - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pythonLiteral matches True, False or None as a whole word at s[i:].
func pythonLiteral(s string, i int) (word, lit string) {
	for _, p := range [][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
		if strings.HasPrefix(s[i:], p[0]) && !wordByte(s, i-1) && !wordByte(s, i+len(p[0])) {
			return p[0], p[1]
		}
	}
	return "", ""
}

func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// salvage returns the facts of a broken answer that are whole objects on
// their own: what came through of an answer cut off at the token limit, or
// the good facts around a bad one.
func salvage(s string) []rawFact {
	var out []rawFact
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		end := matchBrace(s, i)
		if end < 0 {
			continue // unclosed: look inside it
		}
		var f rawFact
		if json.Unmarshal([]byte(s[i:end+1]), &f) == nil && f.Value != "" {
			out = append(out, f)
			i = end
		}
		// Otherwise a wrapper object or a broken one: look inside it.
	}
	return out
}

// matchBrace returns the index of the brace closing the one at s[i], or -1;
// braces inside strings do not count.
func matchBrace(s string, i int) int {
	depth := 0
	inString, escaped := false, false
	for j := i; j < len(s); j++ {
		c := s[j]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
