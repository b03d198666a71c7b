package temporal

import "time"

// expr matches a date expression at i: a part of one ("early May", "the
// end of 2022", "the second week of November"), a relative one ("last
// week", "this summer", "yesterday") or an absolute one ("7 May 2023",
// "September 2023", "2022").
func (p *parser) expr(i int) (span, int) {
	if p.tok(i).punct {
		return span{}, 0
	}
	if s, n := p.partOf(i); n > 0 {
		return s, n
	}
	if s, n := p.weekOf(i); n > 0 {
		return s, n
	}
	if s, n := p.relative(i); n > 0 {
		return s, n
	}
	if s, n := p.deictic(i); n > 0 {
		return s, n
	}
	return p.absolute(i)
}

// partOf matches early|mid|late X and [the] beginning|start|middle|end of X.
func (p *parser) partOf(i int) (span, int) {
	which, k := -1, 0
	switch w := p.tok(i).s; w {
	case "early":
		which, k = 0, 1
	case "mid", "middle":
		which, k = 1, 1
	case "late":
		which, k = 2, 1
	}
	if which >= 0 && p.tok(i+k).s == "-" {
		k++
	}
	if which < 0 {
		j := i
		if p.tok(j).s == "the" {
			j++
		}
		switch p.tok(j).s {
		case "beginning", "start":
			which = 0
		case "middle":
			which = 1
		case "end":
			which = 2
		default:
			return span{}, 0
		}
		if p.tok(j+1).s != "of" {
			return span{}, 0
		}
		k = j + 2 - i
	}
	x, n := p.expr(i + k)
	if n == 0 || x.to.Sub(x.from) < 72*time.Hour {
		return span{}, 0
	}
	return part(x, which), k + n
}

// weekOf matches [the] first|second|third|fourth|last week of X.
func (p *parser) weekOf(i int) (span, int) {
	j := i
	if p.tok(j).s == "the" {
		j++
	}
	nth, ok := ordinalWords[p.tok(j).s]
	last := p.tok(j).s == "last"
	if !ok && !last || !p.is(j+1, "week", "of") {
		return span{}, 0
	}
	x, n := p.expr(j + 3)
	if n == 0 || x.to.Sub(x.from) < 14*24*time.Hour {
		return span{}, 0
	}
	from := x.from.AddDate(0, 0, 7*(nth-1))
	if last {
		from = x.to.AddDate(0, 0, -7)
	}
	to := from.AddDate(0, 0, 7)
	if to.After(x.to) {
		to = x.to
	}
	if !from.Before(to) {
		return span{}, 0
	}
	return span{from: from, to: to, conf: x.conf * 0.9}, j + 3 + n - i
}

// relative matches last|this|next|previous|coming|past X where X is a
// unit, a weekday, a month or a season.
func (p *parser) relative(i int) (span, int) {
	dir := 0
	switch p.tok(i).s {
	case "last", "previous", "past":
		dir = -1
	case "this", "current":
		dir = 0
	case "next", "coming", "upcoming", "following":
		dir = 1
	default:
		return span{}, 0
	}
	x := p.tok(i + 1)
	if u := units[x.s]; u != unitNone && !x.isNum() {
		if p.tok(i).s == "past" {
			return span{from: shift(p.today, u, -1), to: p.today.AddDate(0, 0, 1), conf: 0.75}, 2
		}
		return p.unitSpan(u, shift(p.today, u, dir), 0.85), 2
	}
	if wd, ok := weekdays[x.s]; ok {
		d := p.today
		switch dir {
		case -1:
			for d = d.AddDate(0, 0, -1); d.Weekday() != wd; d = d.AddDate(0, 0, -1) {
			}
		case 1:
			for d = d.AddDate(0, 0, 1); d.Weekday() != wd; d = d.AddDate(0, 0, 1) {
			}
		default:
			d = weekStart(p.today).AddDate(0, 0, (int(wd)+6)%7)
		}
		return span{from: d, to: d.AddDate(0, 0, 1), conf: 0.8}, 2
	}
	if m, ok := months[x.s]; ok {
		y := p.asOf.Year()
		switch {
		case dir < 0 && m >= p.asOf.Month():
			y--
		case dir > 0 && m <= p.asOf.Month():
			y++
		}
		return p.monthSpan(y, m, 0.85), 2
	}
	if s, ok := seasons[x.s]; ok {
		switch dir {
		case -1:
			return p.latestSeason(s, true, 0.75), 2
		case 0:
			return p.latestSeason(s, false, 0.75), 2
		}
		cur := p.latestSeason(s, false, 0.75)
		return p.seasonSpan(s, cur.from.Year()+1, 0.75), 2
	}
	switch x.s {
	case "night":
		if dir < 0 {
			d := p.today.AddDate(0, 0, -1)
			return span{from: d, to: p.today.Add(6 * time.Hour), conf: 0.85}, 2
		}
	case "morning", "afternoon", "evening":
		if dir == 0 {
			return span{from: p.today, to: p.today.AddDate(0, 0, 1), conf: 0.9}, 2
		}
	}
	return span{}, 0
}

// deictic matches today, tonight, yesterday, tomorrow and the day
// before yesterday or after tomorrow.
func (p *parser) deictic(i int) (span, int) {
	day := func(d int, conf float64) span {
		from := p.today.AddDate(0, 0, d)
		return span{from: from, to: from.AddDate(0, 0, 1), conf: conf}
	}
	switch {
	case p.is(i, "the", "day", "before", "yesterday"):
		return day(-2, 0.9), 4
	case p.is(i, "the", "day", "after", "tomorrow"):
		return day(2, 0.9), 4
	}
	switch p.tok(i).s {
	case "today", "tonight":
		return day(0, 0.9), 1
	case "yesterday":
		return day(-1, 0.9), 1
	case "tomorrow":
		return day(1, 0.9), 1
	}
	return span{}, 0
}
