package rules

import "strings"

// Capturer holds the compiled patterns. It is safe for concurrent use.
type Capturer struct {
	rules   []rule
	byFirst map[string][]int // first word → indexes into rules, in table order
	byWords []int            // rules gated by keywords instead of a first word
	pre     prefixes
	cats    catIndex
}

// New compiles the patterns once.
func New() *Capturer {
	c := &Capturer{byFirst: map[string][]int{}, pre: newPrefixes(), cats: newCatIndex()}
	c.rules = append(preferenceRules(), factRules()...)
	for i, r := range c.rules {
		if r.first == nil {
			c.byWords = append(c.byWords, i)
			continue
		}
		for _, w := range r.first {
			c.byFirst[w] = append(c.byFirst[w], i)
		}
	}
	return c
}

// Capture returns the facts in one message. Only the user's own messages
// produce facts: assistant, tool and system text is not the user speaking.
func (c *Capturer) Capture(role, text string) []Fact {
	if !strings.EqualFold(strings.TrimSpace(role), "user") || strings.TrimSpace(text) == "" {
		return nil
	}
	var buf [16]span
	spans := splitClauses(text, buf[:0])
	var out []Fact
	var norms []string
	for _, sp := range spans {
		f, ok := c.clause(text, sp)
		if !ok {
			continue
		}
		out, norms = appendUnique(out, norms, f)
	}
	return out
}

// directiveOpeners start an instruction without naming who acts.
var directiveOpeners = setOf("always", "never", "please", "don't", "dont", "do", "make", "remember",
	"ensure", "stop", "start", "be", "keep", "must")

// appendUnique drops a repeated fact and keeps keys distinct within a
// message; norms holds the normalised content of the facts in out.
func appendUnique(out []Fact, norms []string, f Fact) ([]Fact, []string) {
	norm := strings.ToLower(f.Content) // sentence() already single-spaced it
	n := 1
	for i, o := range out {
		if norms[i] == norm {
			return out, norms
		}
		if o.Key == f.Key || strings.HasPrefix(o.Key, f.Key+"-") {
			n++
		}
	}
	if n > 1 {
		f.Key = keyFor(f.Key, "") + "-" + string(rune('0'+min(n, 9)))
	}
	return append(out, f), append(norms, norm)
}

// clause matches one clause; see the package comment for what it refuses.
func (c *Capturer) clause(text string, sp span) (Fact, bool) {
	ev := text[sp.start:sp.end]
	if len(ev) > MaxContentChars {
		ev = cutWords(ev, MaxContentChars)
	}
	// A marker sentence before it ("No. Use yarn.") makes two words enough.
	if n := wordCount(ev); n < 3 && (sp.flags == 0 || n < 2) {
		return Fact{}, false
	}
	orig := trimTail(ev)
	low := asciiLower(orig)
	pos, fl := c.pre.strip(low, 0, sp.flags)
	if fl&flagDrop != 0 {
		return Fact{}, false
	}
	pos, cond, ok := c.condition(orig, low, pos)
	if !ok {
		return Fact{}, false
	}
	if cond != "" {
		if pos, fl = c.pre.strip(low, pos, fl); fl&flagDrop != 0 {
			return Fact{}, false
		}
		// "Every time you change the schema, update …" is a standing rule.
		if w := firstWord(asciiLower(cond)); w == "every" || w == "each" || w == "whenever" {
			fl |= flagDurable
		}
	}
	rest, restLow := orig[pos:], low[pos:]
	if !c.admissible(restLow, sp.question, fl) || sp.shared && directiveOpeners[firstWord(restLow)] {
		return Fact{}, false
	}
	name, d, ok := c.match(rest, restLow)
	if !ok {
		name, d, ok = fallback(rest, restLow, fl)
		if !ok {
			return Fact{}, false
		}
	}
	return c.build(ev, name, d, cond, restLow, fl)
}

// trimTail drops closing punctuation and sign-offs ("…, please!", "thanks").
func trimTail(s string) string {
	for {
		t := strings.TrimRight(s, " \t.!?;:,)\"'’”")
		low := asciiLower(t)
		for _, suf := range []string{" please", " pls", " thanks", " thank you", " thx", " ty", " ok", " okay"} {
			if strings.HasSuffix(low, suf) {
				t = t[:len(t)-len(suf)]
				break
			}
		}
		if t == s {
			return s
		}
		s = t
	}
}

// condition splits "when deploying, always …" into its condition and main
// clause. A bare "if …" with no main clause is hypothetical and refused.
func (c *Capturer) condition(orig, low string, pos int) (int, string, bool) {
	rest := low[pos:]
	w := firstWord(rest)
	if !subordinators[w] || w == "every" && !strings.HasPrefix(rest, "every time") ||
		w == "each" && !strings.HasPrefix(rest, "each time") {
		return pos, "", true
	}
	if w == "when" && auxiliaries[firstWord(rest[len(w):])] {
		return pos, "", false // "when do we deploy"
	}
	if i := strings.IndexByte(rest, ','); i > 0 {
		j := i + 1
		for j < len(rest) && rest[j] == ' ' {
			j++
		}
		return pos + j, strings.TrimSpace(orig[pos : pos+i]), j < len(rest)
	}
	switch w {
	case "if", "unless", "although", "though", "because", "since", "while":
		return pos, "", false
	}
	for _, m := range []string{" always ", " never ", " make sure ", " please ", " you must ", " we must ", " don't ever "} {
		if i := strings.Index(rest, m); i > 0 {
			return pos + i + 1, strings.TrimSpace(orig[pos : pos+i]), true
		}
	}
	return pos, "", false
}

// admissible refuses questions, hypotheticals, negated mentions and quotes.
func (c *Capturer) admissible(low string, question bool, fl flag) bool {
	if low == "" || strings.IndexAny(low[:1], "\"'`“‘") == 0 || strings.HasPrefix(low, "“") || strings.HasPrefix(low, "‘") {
		return false
	}
	if fl&flagRequest == 0 {
		if question {
			return false
		}
		w := firstWord(low)
		if questionStarters[w] && !(w == "do" && strings.HasPrefix(low, "do not")) {
			return false
		}
	}
	if c.pre.refused(low) {
		return false
	}
	for _, s := range []string{" i wish ", " would have ", " could have ", " should have ", "hypothetically",
		`said "`, `says "`, `told me "`, `wrote "`, "said “", "says “", "wrote “"} {
		if strings.Contains(low, s) {
			return false
		}
	}
	return true
}

// match runs the rules that can open this clause, in table order.
func (c *Capturer) match(orig, low string) (string, draft, bool) {
	cands := c.byFirst[firstWord(low)]
	try := func(i int) (draft, bool) {
		r := &c.rules[i]
		m := r.re.FindStringSubmatchIndex(low)
		if m == nil {
			return draft{}, false
		}
		return r.build(&ruleCtx{orig: orig, low: low, m: m})
	}
	for _, i := range cands {
		if need := c.rules[i].keywords; need != nil && !hasAny(low, need) {
			continue
		}
		if d, ok := try(i); ok {
			return c.rules[i].name, d, true
		}
	}
	for _, i := range c.byWords {
		if !hasAny(low, c.rules[i].keywords) {
			continue
		}
		if d, ok := try(i); ok {
			return c.rules[i].name, d, true
		}
	}
	return "", draft{}, false
}

func hasAny(s string, subs []string) bool {
	for _, k := range subs {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
