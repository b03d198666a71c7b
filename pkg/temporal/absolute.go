package temporal

import "time"

// absolute matches a written date: ISO (2023-05-07, 2023-05), numeric
// (5/7/2023), day and month ("7 May 2023", "the 7th of May"), month and
// day ("May 7th, 2023"), month and year, season and year, a year, a decade
// ("the 1990s"), a month or season alone, or a weekday ("on Friday").
func (p *parser) absolute(i int) (span, int) {
	j := i
	if p.tok(j).s == "the" {
		j++
	}
	if s, n := p.iso(j); n > 0 {
		return s, j - i + n
	}
	if s, n := p.numeric(j); n > 0 {
		return s, j - i + n
	}
	if s, n := p.dayMonth(j); n > 0 {
		return s, j - i + n
	}
	if s, n := p.monthFirst(j); n > 0 {
		return s, j - i + n
	}
	if s, n := p.seasonYear(j); n > 0 {
		return s, j - i + n
	}
	tk := p.tok(j)
	if y, ok := yearOf(tk); ok && p.yearContext(j) {
		return p.yearSpan(y, 0.8), j - i + 1
	}
	if y, ok := decadeOf(tk.s); ok {
		return span{from: p.date(y, 1, 1), to: p.date(y+10, 1, 1), conf: 0.6}, j - i + 1
	}
	if wd, ok := weekdays[tk.s]; ok && (p.tok(j-1).s == "on" || tk.capital) {
		// "Tuesday, May 20": the date says which Tuesday.
		k := j + 1
		if p.tok(k).punct && p.tok(k).s == "," {
			k++
		}
		for _, date := range []func(int) (span, int){p.dayMonth, p.monthFirst, p.numeric, p.iso} {
			if s, n := date(k); n > 0 {
				return s, k - i + n
			}
		}
		d := p.today
		for d.Weekday() != wd {
			d = d.AddDate(0, 0, -1)
		}
		return span{from: d, to: d.AddDate(0, 0, 1), conf: 0.6}, j - i + 1
	}
	return span{}, 0
}

// yearOf reads a year, 1900-2100, written as four digits.
func yearOf(tk token) (int, bool) {
	if tk.isNum() && !tk.ord && tk.digits == 4 && tk.num >= 1900 && tk.num <= 2100 {
		return tk.num, true
	}
	return 0, false
}

// yearContext says a bare four-digit number at i reads as a year: after a
// time preposition or "the year", or not followed by a word ("2000 people"
// is a count).
func (p *parser) yearContext(i int) bool {
	prev, next := p.tok(i-1), p.tok(i+1)
	if timePrepositions[prev.s] || prev.s == "year" || prev.s == "the" || prev.s == "circa" || prev.s == "and" {
		return true
	}
	return next.punct || next.s == "and" || next.s == "or" || next.s == "to" || next.s == "until"
}

// decadeOf reads "1990s".
func decadeOf(s string) (int, bool) {
	if len(s) != 5 || s[4] != 's' || s[3] != '0' {
		return 0, false
	}
	y := 0
	for k := 0; k < 4; k++ {
		if s[k] < '0' || s[k] > '9' {
			return 0, false
		}
		y = y*10 + int(s[k]-'0')
	}
	return y, y >= 1900 && y <= 2090
}

// validDay says d is a day of month m in year y.
func validDay(y int, m time.Month, d int) bool {
	return d >= 1 && d <= time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// iso matches YYYY-MM-DD, YYYY/MM/DD and YYYY-MM.
func (p *parser) iso(i int) (span, int) {
	y, ok := yearOf(p.tok(i))
	sep := p.tok(i + 1).s
	if !ok || (sep != "-" && sep != "/") || !p.adjacent(i) || !p.adjacent(i+1) {
		return span{}, 0
	}
	mt := p.tok(i + 2)
	if !mt.isNum() || mt.ord || mt.digits > 2 || mt.num < 1 || mt.num > 12 {
		return span{}, 0
	}
	m := time.Month(mt.num)
	if p.tok(i+3).s == sep && p.adjacent(i+2) && p.adjacent(i+3) {
		dt := p.tok(i + 4)
		if dt.isNum() && !dt.ord && dt.digits <= 2 && validDay(y, m, dt.num) {
			return p.daySpan(y, m, dt.num, 1), 5
		}
		return span{}, 0
	}
	return p.monthSpan(y, m, 0.95), 3
}

// numeric matches M/D/YYYY, or D/M/YYYY when the first number cannot be a
// month; both separated by / or -.
func (p *parser) numeric(i int) (span, int) {
	a, b := p.tok(i), p.tok(i+2)
	sep := p.tok(i + 1).s
	if (sep != "/" && sep != "-") || p.tok(i+3).s != sep || !a.isNum() || !b.isNum() || a.ord || b.ord || a.digits > 2 || b.digits > 2 {
		return span{}, 0
	}
	for k := i; k < i+4; k++ {
		if !p.adjacent(k) {
			return span{}, 0
		}
	}
	y, ok := yearOf(p.tok(i + 4))
	if !ok {
		return span{}, 0
	}
	m, d, conf := a.num, b.num, 0.7
	switch {
	case m > 12:
		m, d, conf = d, m, 0.95
	case d > 12:
		conf = 0.95
	}
	if m < 1 || m > 12 || !validDay(y, time.Month(m), d) {
		return span{}, 0
	}
	return p.daySpan(y, time.Month(m), d, conf), 5
}

// monthAt reads a month name at i; an ambiguous one needs context: a day
// or year after it, a time preposition before it, or a capital mid-text.
func (p *parser) monthAt(i int, sure bool) (time.Month, bool) {
	tk := p.tok(i)
	m, ok := months[tk.s]
	if !ok {
		return 0, false
	}
	if sure || !ambiguousMonths[tk.s] {
		return m, true
	}
	next := p.tok(i + 1)
	if next.s == "," || next.s == "." {
		next = p.tok(i + 2)
	}
	if next.isNum() && (next.digits == 4 || next.num <= 31) {
		return m, true
	}
	if timePrepositions[p.tok(i-1).s] {
		return m, true
	}
	prev := p.tok(i - 1)
	if tk.capital && i > 0 && !(prev.punct && (prev.s == "." || prev.s == "?" || prev.s == "!")) {
		return m, true
	}
	return 0, false
}

// skipDot skips the full stop of an abbreviation ("Sept.").
func (p *parser) skipDot(i int) int {
	if p.tok(i).s == "." && p.adjacent(i-1) {
		return i + 1
	}
	return i
}

// optYear reads ", 2023" or " 2023" or " of 2023" after a date.
func (p *parser) optYear(i int) (int, int) {
	j := i
	if p.tok(j).s == "," || p.tok(j).s == "of" {
		j++
	}
	if y, ok := yearOf(p.tok(j)); ok {
		return y, j + 1 - i
	}
	return 0, 0
}

// dayMonth matches "7 May [2023]", "7th of May, 2023".
func (p *parser) dayMonth(i int) (span, int) {
	dt := p.tok(i)
	if !dt.isNum() || dt.digits > 2 || dt.num < 1 || dt.num > 31 {
		return span{}, 0
	}
	j := i + 1
	if p.tok(j).s == "of" {
		j++
	}
	m, ok := p.monthAt(j, true)
	if !ok {
		return span{}, 0
	}
	j = p.skipDot(j + 1)
	if y, n := p.optYear(j); n > 0 {
		if !validDay(y, m, dt.num) {
			return span{}, 0
		}
		return p.daySpan(y, m, dt.num, 1), j + n - i
	}
	if !validDay(2024, m, dt.num) {
		return span{}, 0
	}
	return p.yearlessDay(m, dt.num), j - i
}

// monthFirst matches "May 7th[, 2023]", "May 2023", "May of 2023" and a
// month alone (its latest occurrence).
func (p *parser) monthFirst(i int) (span, int) {
	m, ok := p.monthAt(i, false)
	if !ok {
		return span{}, 0
	}
	j := p.skipDot(i + 1)
	if y, n := p.optYear(j); n > 0 {
		return p.monthSpan(y, m, 0.95), j + n - i
	}
	k := j
	if p.tok(k).s == "the" {
		k++
	}
	if dt := p.tok(k); dt.isNum() && dt.digits <= 2 && dt.num >= 1 && dt.num <= 31 && !p.isUnit(k+1) {
		k++
		if y, n := p.optYear(k); n > 0 {
			if !validDay(y, m, dt.num) {
				return span{}, 0
			}
			return p.daySpan(y, m, dt.num, 1), k + n - i
		}
		if validDay(2024, m, dt.num) {
			return p.yearlessDay(m, dt.num), k - i
		}
	}
	return p.latestMonth(m, 0.7), j - i
}

// isUnit says token i is a unit or "ago" (so "May 3 years ago" is no date).
func (p *parser) isUnit(i int) bool {
	return units[p.tok(i).s] != unitNone || p.tok(i).s == "ago"
}

// seasonYear matches "summer 2022", "summer of 2022", "the summer".
func (p *parser) seasonYear(i int) (span, int) {
	s, ok := seasons[p.tok(i).s]
	if !ok {
		return span{}, 0
	}
	if y, n := p.optYear(i + 1); n > 0 {
		return p.seasonSpan(s, y, 0.85), 1 + n
	}
	return p.latestSeason(s, false, 0.6), 1
}
