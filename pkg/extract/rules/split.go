package rules

import (
	"strings"
	"unicode/utf8"
)

// flag carries context from a marker sentence or prefix to a clause.
type flag uint8

const (
	flagCorrection flag = 1 << iota // "actually …", "no, …", "No. …"
	flagRemember                    // "remember that …"
	flagPolicy                      // "Rule: …"
	flagDurable                     // "from now on …"
)

// span is one clause of the message: byte offsets into the original text.
type span struct {
	start, end int
	question   bool // the clause ends its sentence with '?'
	flags      flag // inherited from a marker sentence before it
	// shared is set when the clause was cut after "and"/"also" from a clause
	// whose subject it shares ("they … and always cheer me on"): a leading
	// "always"/"make sure" there narrates instead of instructing.
	shared bool
}

// splitClauses cuts a message into clauses. Fenced code, indented code and
// block quotes are skipped: text there is not the user speaking.
func splitClauses(text string, out []span) []span {
	inFence := false
	var pending flag
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		next := le + 1
		if le > ls && text[le-1] == '\r' {
			le-- // CRLF
		}
		line := text[ls:le]
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			inFence = !inFence
		case inFence, strings.HasPrefix(t, ">"), strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"):
		default:
			s := le - len(t)
			s += listMarker(t)
			out, pending = splitSentences(text, s, le, pending, out)
		}
		ls = next
	}
	return out
}

// listMarker returns the length of a leading bullet or number ("- ", "2. ").
func listMarker(t string) int {
	if len(t) >= 2 && strings.IndexByte("-*+", t[0]) >= 0 && t[1] == ' ' {
		return 2
	}
	if strings.HasPrefix(t, "• ") {
		return len("• ")
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return i + 2
	}
	return 0
}

// splitSentences cuts text[s:e] (one line) at sentence ends outside inline
// code and quotes, then each sentence into clauses.
func splitSentences(text string, s, e int, pending flag, out []span) ([]span, flag) {
	start := s
	inTick, inQuote := false, false
	emit := func(end int, term byte) {
		if m := markerFlag(text[start:end]); m != 0 {
			pending |= m
			return
		}
		out = splitSentence(text, start, end, term == '?', pending, out)
		pending = 0
	}
	for i := s; i < e; i++ {
		b := text[i]
		switch {
		case b == '`':
			inTick = !inTick
		case inTick:
		case b == '"':
			inQuote = !inQuote
		case b == 0xe2 && strings.HasPrefix(text[i:e], "“"):
			inQuote = true
		case b == 0xe2 && strings.HasPrefix(text[i:e], "”"):
			inQuote = false
		case inQuote:
		case b == '.' || b == '!' || b == '?' || b == ';' || b == ':':
			j := i + 1
			for j < e && (text[j] == '.' || text[j] == '!' || text[j] == '?' || text[j] == ')') {
				j++
			}
			if j < e && text[j] != ' ' && text[j] != '\t' {
				i = j - 1
				continue // "v1.2", "main.go", "10:30", "http://"
			}
			if b == '.' && abbreviations[lastWord(text[start:i])] {
				continue
			}
			emit(i, b)
			start = j
			i = j - 1
		}
	}
	if start < e {
		emit(e, 0)
	}
	return out, pending
}

// markerFlag recognises a stand-alone marker sentence ("No.", "Remember:").
func markerFlag(s string) flag {
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > 24 {
		return 0
	}
	return markerSentences[strings.TrimRight(asciiLower(normApos(s)), " ,!-")]
}

// lastWord returns the lowercased word before a dot, keeping inner dots ("e.g").
func lastWord(s string) string {
	i := strings.LastIndexAny(s, " \t(")
	return asciiLower(s[i+1:])
}

// splitSentence cuts a sentence into clauses at ", and …", "; …", " but …"
// when what follows starts a capturable clause of its own.
func splitSentence(text string, s, e int, question bool, flags flag, out []span) []span {
	cs := s
	inTick, inQuote := false, false
	commas := 0
	shared := false
	for i := s; i < e; i++ {
		b := text[i]
		switch {
		case b == '`':
			inTick = !inTick
			continue
		case inTick:
			continue
		case b == '"':
			inQuote = !inQuote
			continue
		case inQuote:
			continue
		}
		var r int
		switch {
		case b == ' ' && inlineEnumerator(text[i+1:e]) > 0:
			// "1) always use UTC 2) never log PII": each item is a clause.
			out = appendSpan(out, text, cs, i, false, flags, shared)
			shared = false
			cs = i + 1
			commas = 0
			continue
		case b == ',':
			r = i + 1
		case b == ' ' && (hasWordAt(text, i+1, e, "and") || hasWordAt(text, i+1, e, "but") ||
			hasWordAt(text, i+1, e, "also") || hasWordAt(text, i+1, e, "then")):
			r = i + 1
		default:
			continue
		}
		conj := r
		r = skipConnectors(text, r, e)
		if r >= e || !clauseStarters[firstWord(text[r:e])] {
			if b == ',' {
				commas++
			}
			continue
		}
		left := text[cs:i]
		// "When deploying, always …": the condition stays with its main clause.
		if b == ',' && commas == 0 && subordinators[firstWord(left)] {
			commas++
			continue
		}
		if wordCount(left) < 2 && !strings.Contains(left, ",") {
			continue
		}
		out = appendSpan(out, text, cs, i, false, flags, shared)
		shared = coordinated(text[conj:r]) && !selfContained(left)
		cs = r
		commas = 0
		i = r - 1
	}
	return appendSpan(out, text, cs, e, question, flags, shared)
}

// coordinated: the connector joins two predicates of one subject ("and",
// "also", "then") rather than two sentences (", so", a comma splice).
func coordinated(conn string) bool {
	for _, w := range strings.FieldsFunc(asciiLower(conn), func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		switch w {
		case "so", "but":
			return false
		case "and", "also", "then", "plus":
			return true
		}
	}
	return false
}

// selfContained: the left clause is the user speaking or instructing, so a
// directive after "and" is the user's too ("I prefer tabs, and always …").
func selfContained(left string) bool {
	ws := strings.Fields(asciiLower(normApos(left)))
	for len(ws) > 0 && leftFillers[strings.Trim(ws[0], ",.!")] {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return true
	}
	w := strings.Trim(ws[0], ",.!")
	if w == "you" {
		return len(ws) > 1 && (ws[1] == "should" || ws[1] == "must" || ws[1] == "need" || ws[1] == "have" || ws[1] == "shall")
	}
	return selfSubjects[w] || imperativeVerbs[w]
}

var leftFillers = setOf("just", "so", "and", "but", "also", "ok", "okay", "well", "oh", "yeah", "yes", "no", "please", "then")

var selfSubjects = setOf("i", "i'm", "i'd", "i've", "i'll", "we", "we're", "we've", "we'll", "please",
	"always", "never", "don't", "dont", "do", "make", "remember", "ensure", "from", "going",
	"actually", "whenever", "when", "before", "after", "if", "my", "our")

// appendSpan trims the clause and keeps it when it has any word in it.
func appendSpan(out []span, text string, s, e int, question bool, flags flag, shared bool) []span {
	for s < e && (text[s] == ' ' || text[s] == '\t' || text[s] == ',') {
		s++
	}
	s += inlineEnumerator(text[s:e])
	for e > s && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == ',') {
		e--
	}
	if e-s < 3 {
		return out
	}
	return append(out, span{start: s, end: e, question: question, flags: flags, shared: shared})
}

// inlineEnumerator returns the length of "2) " or "(b) " opening s.
func inlineEnumerator(s string) int {
	i := 0
	if strings.HasPrefix(s, "(") {
		i = 1
	}
	j := i
	for j < len(s) && j-i < 2 && (s[j] >= '0' && s[j] <= '9' || j == i && s[j] >= 'a' && s[j] <= 'e') {
		j++
	}
	if j == i || j+1 >= len(s) || s[j] != ')' || s[j+1] != ' ' {
		return 0
	}
	if i == 0 && s[0] >= 'a' { // "a) " needs its parenthesis to be an item
		return 0
	}
	return j + 2
}

// skipConnectors steps over spaces, commas and "and/but/also/then/so/plus".
func skipConnectors(text string, i, e int) int {
	for i < e {
		switch {
		case text[i] == ' ' || text[i] == ',' || text[i] == '\t':
			i++
		case hasWordAt(text, i, e, "and"), hasWordAt(text, i, e, "but"), hasWordAt(text, i, e, "then"):
			i += 3
		case hasWordAt(text, i, e, "also"), hasWordAt(text, i, e, "plus"):
			i += 4
		case hasWordAt(text, i, e, "so"):
			i += 2
		default:
			return i
		}
	}
	return i
}

// hasWordAt reports whether text[i:e] starts with word followed by a non-letter.
func hasWordAt(text string, i, e int, word string) bool {
	if e-i < len(word) || !strings.EqualFold(text[i:i+len(word)], word) {
		return false
	}
	return i+len(word) == e || !isWordByte(text[i+len(word)])
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '\'' || b >= utf8.RuneSelf
}

// firstWord is the lowercased first word with curly apostrophes made straight.
func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t,")
	i, plain := 0, true
	for i < len(s) {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z' || b == '\'' || b == '-':
			i++
			continue
		case b >= 'A' && b <= 'Z':
			plain = false
			i++
			continue
		}
		if strings.HasPrefix(s[i:], "’") {
			plain = false
			i += len("’")
			continue
		}
		break
	}
	if plain {
		return s[:i] // already lower: no allocation on the hot path
	}
	if i == 1 && s[0] == 'I' {
		return "i"
	}
	return asciiLower(normApos(s[:i]))
}

// wordCount counts runs of letters or digits.
func wordCount(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		w := isWordByte(s[i]) && s[i] != '\''
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// asciiLower lowercases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// normApos turns curly apostrophes straight (changes lengths: lookups only).
func normApos(s string) string {
	if !strings.Contains(s, "’") {
		return s
	}
	return strings.ReplaceAll(s, "’", "'")
}
