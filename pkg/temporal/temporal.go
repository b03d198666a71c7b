// Package temporal reads the time a question refers to: English temporal
// expressions ("7 May 2023", "in September", "summer 2022", "last week",
// "two years ago", "before June", "the week before 16 November 2023")
// resolved against an anchor time as_of into soft windows [From, To) with a
// confidence, and the question's stance on time: whether it asks when
// something happened, about an earlier state ("originally", "used to", "at
// first") or about the current one ("now", "recently", "latest").
//
// Parsing is a single pass over the words of the text, with no regular
// expressions: it costs microseconds and never fails; text it does not
// understand yields no window.
package temporal

import (
	"strings"
	"time"
)

// Window is a span of time [From, To) a text refers to. A zero From is
// open to the past, a zero To open to the future; never both.
type Window struct {
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Confidence in (0, 1] that the text means this span: an explicit date
	// is near 1, a bare month or "a few years ago" lower, "recently" low.
	Confidence float64 `json:"confidence"`
	// Text is the words that gave the window.
	Text string `json:"text"`
}

// Contains says t lies in the window.
func (w Window) Contains(t time.Time) bool {
	return (w.From.IsZero() || !t.Before(w.From)) && (w.To.IsZero() || t.Before(w.To))
}

// Gap is how far t lies before the window's start (before > 0) or after its
// end (after > 0); both are 0 inside.
func (w Window) Gap(t time.Time) (before, after time.Duration) {
	if !w.From.IsZero() && t.Before(w.From) {
		return w.From.Sub(t), 0
	}
	if !w.To.IsZero() && !t.Before(w.To) {
		return 0, t.Sub(w.To)
	}
	return 0, 0
}

// Width is the window's length; 0 for an open window.
func (w Window) Width() time.Duration {
	if w.From.IsZero() || w.To.IsZero() {
		return 0
	}
	return w.To.Sub(w.From)
}

// Overlaps says the two windows share an instant.
func (w Window) Overlaps(o Window) bool {
	return (w.To.IsZero() || o.From.IsZero() || o.From.Before(w.To)) &&
		(o.To.IsZero() || w.From.IsZero() || w.From.Before(o.To))
}

// Query is what a text says about time, relative to AsOf.
type Query struct {
	AsOf    time.Time `json:"as_of"`
	Windows []Window  `json:"windows,omitempty"`
	// AsksWhen: the text asks for a time ("when", "what year", "how long
	// ago"): its answer is likely a memory that mentions one.
	AsksWhen bool `json:"asks_when,omitempty"`
	// Past: the text asks about an earlier state ("originally", "used to",
	// "at first", "before …"): an older memory may be the answer.
	Past bool `json:"past,omitempty"`
	// PastTense: the text is a question in the past tense ("what did she
	// paint?", "where was he?") or the present perfect ("which editors
	// have I used?", "how has the date moved?"): it asks about an event or
	// a history, not the current state of things.
	PastTense bool `json:"past_tense,omitempty"`
	// Recent: the text asks about the current state ("now", "currently",
	// "latest", "recently").
	Recent bool `json:"recent,omitempty"`
	// Terms are the words that set the windows and flags, in order.
	Terms []string `json:"terms,omitempty"`
}

// Empty says the text says nothing about time.
func (q Query) Empty() bool {
	return len(q.Windows) == 0 && !q.AsksWhen && !q.Past && !q.Recent
}

// Parse reads the temporal expressions of text relative to asOf.
func Parse(text string, asOf time.Time) Query {
	p := parser{text: text, t: tokenize(text), asOf: asOf, today: dayStart(asOf)}
	q := Query{AsOf: asOf}
	used := p.windows(&q, true)
	p.flags(&q, used)
	return q
}

// Windows reads only the windows of text relative to asOf (no stance, no
// terms): what a memory's content says about when its events happened.
func Windows(text string, asOf time.Time) []Window {
	p := parser{text: text, t: tokenize(text), asOf: asOf, today: dayStart(asOf)}
	var q Query
	p.windows(&q, false)
	return q.Windows
}

// windows collects the windows into q (and their words into its terms,
// with terms) and returns which tokens they took.
func (p *parser) windows(q *Query, terms bool) []bool {
	used := make([]bool, len(p.t))
	core := make([]bool, len(p.t))
	for i, tk := range p.t {
		core[i] = !tk.punct && (tk.isNum() || coreWords[tk.s] || isDecade(tk.s))
	}
	near := func(i int) bool {
		for k := i + 1; k < len(core) && k <= i+4; k++ {
			if core[k] {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(p.t); {
		if !core[i] && !(starters[p.t[i].s] && near(i)) {
			i++
			continue
		}
		if s, n := p.window(i); n > 0 {
			for k := i; k < i+n; k++ {
				used[k] = true
			}
			for _, w := range s.windows() {
				w.Text = p.textOf(i, i+n)
				q.Windows = append(q.Windows, w)
			}
			if terms {
				q.Terms = append(q.Terms, p.textOf(i, i+n))
			}
			i += n
			continue
		}
		i++
	}
	return used
}

// Mentions says text names a time: a date, a month, a weekday, a year, or
// a relative time ("yesterday", "last week", "3 years ago", "since"). It
// reads the words in place, without allocating.
func Mentions(text string) bool {
	if len(text) > maxParseBytes {
		text = text[:maxParseBytes]
	}
	var buf [16]byte
	sentenceStart, counted := true, false
	for i := 0; i < len(text); {
		c := text[i]
		if !isASCIIAlnum(c) {
			sentenceStart = sentenceStart || c == '.' || c == '?' || c == '!'
			i++
			continue
		}
		start := i
		for i < len(text) && isASCIIAlnum(text[i]) {
			i++
		}
		w := text[start:i]
		first := sentenceStart
		sentenceStart = false
		if len(w) > len(buf) {
			counted = false
			continue
		}
		n := 0
		for k := 0; k < len(w); k++ {
			ch := w[k]
			if ch >= 'A' && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			buf[n] = ch
			n++
		}
		lw := buf[:n]
		if mentionWords[string(lw)] {
			return true
		}
		// "days" names a time after a count ("three days ago", "for 3
		// days now"), not in "these days" or "the old days".
		if string(lw) == "days" && counted {
			return true
		}
		counted = allDigits(w) || numberWords[string(lw)] > 0
		if _, ok := weekdays[string(lw)]; ok {
			return true
		}
		if _, ok := months[string(lw)]; ok {
			if !ambiguousMonths[string(lw)] || (w[0] >= 'A' && w[0] <= 'Z' && !first) {
				return true
			}
		}
		if len(w) == 4 && allDigits(w) && (w[:2] == "19" || w[:2] == "20") {
			return true
		}
	}
	return false
}

func isDecade(s string) bool {
	_, ok := decadeOf(s)
	return ok
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func allDigits(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return true
}

// parser holds one text's tokens and anchor.
type parser struct {
	text  string
	t     []token
	asOf  time.Time
	today time.Time // start of asOf's day
}

// tok is token i, or an empty one past either end.
func (p *parser) tok(i int) token {
	if i < 0 || i >= len(p.t) {
		return token{num: -1, punct: true}
	}
	return p.t[i]
}

// is says the words from i are ws.
func (p *parser) is(i int, ws ...string) bool {
	for k, w := range ws {
		tk := p.tok(i + k)
		if tk.s != w {
			return false
		}
	}
	return true
}

// adjacent says tokens i and i+1 touch (no space between).
func (p *parser) adjacent(i int) bool {
	return i+1 < len(p.t) && p.t[i].end == p.t[i+1].start
}

func (p *parser) textOf(from, to int) string {
	if from >= to || to > len(p.t) {
		return ""
	}
	return strings.TrimSpace(p.text[p.t[from].start:p.t[to-1].end])
}

// anyPhrase says one of phrases starts at i and returns its length.
func (p *parser) anyPhrase(i int, phrases [][]string) int {
	for _, ph := range phrases {
		if p.is(i, ph...) {
			return len(ph)
		}
	}
	return 0
}

// flags sets AsksWhen, Past and Recent from the words no window took
// ("in the past few months" is a window, not a question about the past;
// "recently" is both a window and a question about now).
func (p *parser) flags(q *Query, used []bool) {
	for i := 0; i < len(p.t); i++ {
		tk := p.t[i]
		if tk.punct {
			continue
		}
		if pastAuxiliaries[tk.s] || p.perfect(i) {
			q.PastTense = true
		}
		if !flagStarters[tk.s] {
			continue
		}
		if used[i] {
			if n := p.anyPhrase(i, recentPhrases); n > 0 {
				q.Recent = true
			}
			continue
		}
		if n := p.asksWhen(i); n > 0 {
			q.AsksWhen = true
			q.Terms = append(q.Terms, p.textOf(i, i+n))
			i += n - 1
			continue
		}
		if n := p.anyPhrase(i, pastPhrases); n > 0 {
			q.Past = true
			q.Terms = append(q.Terms, p.textOf(i, i+n))
			i += n - 1
			continue
		}
		if tk.s == "before" {
			if _, n := p.expr(i + 1); n == 0 {
				q.Past = true
				q.Terms = append(q.Terms, "before")
			}
			continue
		}
		if n := p.anyPhrase(i, recentPhrases); n > 0 {
			q.Recent = true
			q.Terms = append(q.Terms, p.textOf(i, i+n))
			i += n - 1
		}
	}
}

// perfect says "has"/"have" at i is the auxiliary of a present perfect: a
// past participle follows within six words of its clause ("have we
// fixed", "has the date of the demo moved", "has photo-tagger run"), not
// "to" ("have to").
func (p *parser) perfect(i int) bool {
	if w := p.tok(i).s; w != "has" && w != "have" && w != "hasn't" && w != "haven't" {
		return false
	}
	words := 0
	for k := i + 1; words < 6 && k < len(p.t); k++ {
		tk := p.t[k]
		if tk.s == "-" || tk.s == "'" {
			continue // inside a name: "photo-tagger"
		}
		if tk.punct || clauseWords[tk.s] {
			return false
		}
		words++
		if participle(tk.s) {
			return true
		}
	}
	return false
}

// clauseWords end the search for a participle.
var clauseWords = map[string]bool{"to": true, "that": true, "which": true, "who": true, "and": true, "but": true,
	"is": true, "are": true, "was": true, "were": true, "when": true, "where": true, "if": true}

// participle says w looks like a past participle: regular ("-ed") or one of
// the common irregular ones.
func participle(w string) bool {
	if len(w) > 3 && strings.HasSuffix(w, "ed") && w != "need" && w != "indeed" {
		return true
	}
	switch w {
	case "been", "gone", "done", "had", "made", "run", "seen", "taken", "given", "written", "known", "become",
		"come", "got", "gotten", "built", "bought", "brought", "kept", "left", "lost", "met", "read", "sent",
		"spent", "told", "thought", "won", "worn", "chosen", "begun", "grown", "held", "heard", "found", "felt":
		return true
	}
	return false
}

// asksWhen matches a question for a time at i.
func (p *parser) asksWhen(i int) int {
	prev := p.tok(i - 1)
	start := i == 0 || prev.punct || prev.s == "and" || prev.s == "but" || prev.s == "so" || prev.s == "or"
	switch {
	case p.is(i, "when") && start:
		return 1
	case p.is(i, "since", "when"):
		return 2
	case p.is(i, "how", "long"):
		return 2
	case (p.is(i, "what") || p.is(i, "which")) && timeNoun(p.tok(i+1).s):
		return 2
	case p.is(i, "how", "many") && units[p.tok(i+2).s] != unitNone:
		return 3
	}
	return 0
}

func timeNoun(s string) bool {
	switch s {
	case "date", "day", "year", "month", "week", "time", "season", "weekend":
		return true
	}
	return false
}
