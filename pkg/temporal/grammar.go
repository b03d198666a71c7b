package temporal

import (
	"strings"
	"time"
)

// window matches a window-giving expression at i: a range, an open
// window (before/after/since X), a duration back from as_of, or a date
// expression. It returns the span and the tokens it took (0: none).
func (p *parser) window(i int) (span, int) {
	tk := p.tok(i)
	if tk.punct {
		return span{}, 0
	}
	if s, n := p.between(i); n > 0 {
		return s, n
	}
	if s, n := p.relativeTo(i); n > 0 {
		return s, n
	}
	if s, n := p.open(i); n > 0 {
		return s, n
	}
	if s, n := p.lastN(i); n > 0 {
		return s, n
	}
	if s, n := p.ago(i); n > 0 {
		return s, n
	}
	if s, n := p.lasting(i); n > 0 {
		return s, n
	}
	if n := p.anyPhrase(i, [][]string{{"recently"}, {"lately"}, {"these", "days"}, {"nowadays"}}); n > 0 {
		return span{from: p.today.AddDate(0, 0, -30), to: p.today.AddDate(0, 0, 1), conf: 0.3}, n
	}
	return p.expr(i)
}

// between matches "between X and Y" and "from X to|until|through Y".
func (p *parser) between(i int) (span, int) {
	var joins []string
	switch p.tok(i).s {
	case "between":
		joins = []string{"and"}
	case "from":
		joins = []string{"to", "until", "till", "through", "-", "–"}
	default:
		return span{}, 0
	}
	a, n := p.expr(i + 1)
	if n == 0 {
		return span{}, 0
	}
	j := i + 1 + n
	ok := false
	for _, w := range joins {
		if p.tok(j).s == w {
			ok = true
		}
	}
	if !ok {
		return span{}, 0
	}
	b, m := p.expr(j + 1)
	if m == 0 {
		return span{}, 0
	}
	if a.yearless && !b.yearless {
		y := b.from.Year()
		if p.date(y, a.month, a.day).After(b.from) {
			y--
		}
		a = p.daySpan(y, a.month, a.day, b.conf)
	}
	if !a.from.Before(b.to) {
		return span{}, 0
	}
	return span{from: a.from, to: b.to, conf: min(a.conf, b.conf)}, j + 1 + m - i
}

// relativeTo matches "[the] [n] day|week|weekend|month|year before|after
// X" and "[the] <weekday> before|after X".
func (p *parser) relativeTo(i int) (span, int) {
	j := i
	if p.tok(j).s == "the" || p.tok(j).s == "a" {
		j++
	}
	n, c := 1, 0
	if cnt, k, _ := p.count(j); k > 0 && units[p.tok(j+k).s] != unitNone {
		n, c = cnt, k
	}
	u := units[p.tok(j+c).s]
	wd, isWD := weekdays[p.tok(j).s]
	if u == unitNone && !isWD {
		return span{}, 0
	}
	if isWD {
		c = 0
	}
	dir := p.tok(j + c + 1).s
	if dir != "before" && dir != "after" {
		return span{}, 0
	}
	x, m := p.expr(j + c + 2)
	if m == 0 {
		return span{}, 0
	}
	total := j + c + 2 + m - i
	conf := x.conf * 0.9
	if isWD {
		d := dayStart(x.from)
		if dir == "before" {
			for d = d.AddDate(0, 0, -1); d.Weekday() != wd; d = d.AddDate(0, 0, -1) {
			}
		} else {
			for d = dayStart(x.to); d.Weekday() != wd; d = d.AddDate(0, 0, 1) {
			}
		}
		return span{from: d, to: d.AddDate(0, 0, 1), conf: conf}, total
	}
	if u == unitWeekend {
		u = unitWeek
	}
	if dir == "before" {
		return span{from: shift(x.from, u, -n), to: x.from, conf: conf}, total
	}
	return span{from: x.to, to: shift(x.to, u, n), conf: conf}, total
}

// open matches before|after|since|until|by X: a window open on one side.
func (p *parser) open(i int) (span, int) {
	k := 1
	w := p.tok(i).s
	switch {
	case p.is(i, "prior", "to"), p.is(i, "up", "to"), p.is(i, "earlier", "than"), p.is(i, "later", "than"):
		k = 2
		w = p.tok(i).s
	case w == "before", w == "after", w == "since", w == "until", w == "till", w == "by":
	default:
		return span{}, 0
	}
	x, n := p.expr(i + k)
	if n == 0 {
		return span{}, 0
	}
	conf := x.conf * 0.8
	switch w {
	case "before", "prior", "earlier":
		return span{to: x.from, conf: conf}, k + n
	case "until", "till", "by", "up":
		return span{to: x.to, conf: conf}, k + n
	case "since":
		return span{from: x.from, conf: conf}, k + n
	}
	return span{from: x.to, conf: conf}, k + n // after, later than
}

// lastN matches "[in|over|within|for] [the] last|past|previous n units":
// the n units up to as_of.
func (p *parser) lastN(i int) (span, int) {
	j := i
	switch p.tok(j).s {
	case "in", "over", "within", "for", "during", "throughout":
		j++
	}
	prefixed := j > i
	if p.tok(j).s == "the" {
		j++
	}
	switch p.tok(j).s {
	case "last", "past", "previous":
	default:
		return span{}, 0
	}
	n, k, vague := p.count(j + 1)
	u := units[p.tok(j+1+k).s]
	// Bare "last week" is a calendar week (expr's); "in the last week" is
	// the seven days up to as_of, unless it is "the last week of June".
	if u == unitNone || (k == 0 && p.tok(j).s != "past" && !prefixed) || p.tok(j+2+k).s == "of" {
		return span{}, 0
	}
	if k == 0 {
		n = 1
	}
	conf := 0.75
	if vague {
		conf = 0.5
	}
	end := p.today.AddDate(0, 0, 1)
	return span{from: shift(p.today, u, -n), to: end, conf: conf}, j + 2 + k - i
}

// ago matches "n units ago|back|earlier": around as_of less n units.
func (p *parser) ago(i int) (span, int) {
	n, k, vague := p.count(i)
	if k == 0 {
		return span{}, 0
	}
	u := units[p.tok(i+k).s]
	if u == unitNone {
		return span{}, 0
	}
	switch p.tok(i + k + 1).s {
	case "ago", "back":
	default:
		return span{}, 0
	}
	if u == unitWeekend {
		u = unitWeek
	}
	return p.back(n, u, vague), k + 2
}

// back is the time about n units before as_of: that day for days, else a
// window around it that widens with n (and more when vague).
func (p *parser) back(n int, u unit, vague bool) span {
	center := shift(p.asOf, u, -n)
	if u == unitDay {
		d := dayStart(center)
		return span{from: d, to: d.AddDate(0, 0, 1), conf: 0.8}
	}
	half := time.Duration(float64(unitLength(u)) * max(0.5, 0.15*float64(n)))
	conf := 0.65
	if vague {
		half *= 2
		conf = 0.45
	}
	return span{from: center.Add(-half), to: center.Add(half), conf: conf}
}

// lasting matches a duration that runs up to now: "for n units now", "for
// n units and counting", or "for n units" in a present perfect ("I've been
// painting for two years", "we have known each other for ten years"). What
// lasts n units began about n units ago, so it reads as "n units ago", less
// sure. A bare "for 3 years" says nothing about when ("I'll be away for 3
// years", "I lived there for 3 years").
func (p *parser) lasting(i int) (span, int) {
	if p.tok(i).s != "for" {
		return span{}, 0
	}
	j, hedged := i+1, false
	switch p.tok(j).s {
	case "about", "almost", "nearly", "over", "around", "roughly", "close":
		j, hedged = j+1, true
		if p.tok(j).s == "to" {
			j++
		}
	}
	n, k, vague := p.count(j)
	vague = vague || hedged
	if k == 0 {
		return span{}, 0
	}
	u := units[p.tok(j+k).s]
	if u == unitNone || u == unitWeekend {
		return span{}, 0
	}
	end := j + k + 1
	switch {
	case p.tok(end).s == "now":
		end++
	case p.is(end, "and", "counting"):
		end += 2
	case !p.perfectBefore(i):
		return span{}, 0
	}
	s := p.back(n, u, vague)
	s.conf *= 0.8
	return s, end - i
}

// perfectBefore says the clause before token i is in the present perfect:
// "been", or a "have"/"has" (also "I've") with a participle, within eight
// words and no punctuation.
func (p *parser) perfectBefore(i int) bool {
	for k := i - 1; k >= 0 && k >= i-8; k-- {
		tk := p.t[k]
		if tk.punct {
			return false
		}
		switch {
		case tk.s == "been" || p.perfect(k):
			return true
		case strings.HasSuffix(tk.s, "'ve") || strings.HasSuffix(tk.s, "’ve"):
			return true
		}
	}
	return false
}

// count matches a number of units at i: "3", "three", "a", "a few", "a
// couple of", "several". vague says it was not a number.
func (p *parser) count(i int) (n, k int, vague bool) {
	tk := p.tok(i)
	switch {
	case tk.isNum() && !tk.ord && tk.num > 0 && tk.num <= 1000 && tk.digits <= 4:
		return tk.num, 1, false
	case p.is(i, "a", "couple", "of"):
		return 2, 3, true
	case p.is(i, "a", "few"), p.is(i, "a", "couple"):
		return numberWords[p.tok(i+1).s], 2, true
	case tk.s == "few" || tk.s == "several" || tk.s == "couple":
		return numberWords[tk.s], 1, true
	}
	if v, ok := numberWords[tk.s]; ok {
		return v, 1, false
	}
	return 0, 0, false
}
