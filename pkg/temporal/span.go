package temporal

import "time"

// span is a resolved expression: one or more ranges with a confidence. A
// date written without a year keeps its month and day so that a range
// ("between August 11 and August 15 2023") can give it the other end's.
type span struct {
	from, to time.Time
	conf     float64
	extra    *span // a second range (winter of a calendar year)
	yearless bool
	month    time.Month
	day      int
}

func (s span) windows() []Window {
	out := []Window{{From: s.from, To: s.to, Confidence: s.conf}}
	if s.extra != nil {
		out = append(out, Window{From: s.extra.from, To: s.extra.to, Confidence: s.extra.conf})
	}
	return out
}

func dayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

func (p *parser) date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, p.asOf.Location())
}

func (p *parser) daySpan(y int, m time.Month, d int, conf float64) span {
	from := p.date(y, m, d)
	return span{from: from, to: from.AddDate(0, 0, 1), conf: conf}
}

func (p *parser) monthSpan(y int, m time.Month, conf float64) span {
	from := p.date(y, m, 1)
	return span{from: from, to: from.AddDate(0, 1, 0), conf: conf}
}

func (p *parser) yearSpan(y int, conf float64) span {
	return span{from: p.date(y, 1, 1), to: p.date(y+1, 1, 1), conf: conf}
}

// seasonSpan is the season s of year y: three months from its first; winter
// y is the winter months of the calendar year y (January-February and
// December), two ranges.
func (p *parser) seasonSpan(s season, y int, conf float64) span {
	if s.first == time.December {
		return span{from: p.date(y, 1, 1), to: p.date(y, 3, 1), conf: conf,
			extra: &span{from: p.date(y, 12, 1), to: p.date(y+1, 1, 1), conf: conf}}
	}
	from := p.date(y, s.first, 1)
	return span{from: from, to: from.AddDate(0, 3, 0), conf: conf}
}

// weekStart is the Monday that starts t's week.
func weekStart(t time.Time) time.Time {
	d := dayStart(t)
	back := (int(d.Weekday()) + 6) % 7
	return d.AddDate(0, 0, -back)
}

// yearlessDay resolves a month and day without a year to their latest
// occurrence on or before as_of.
func (p *parser) yearlessDay(m time.Month, d int) span {
	y := p.asOf.Year()
	if p.date(y, m, d).After(p.today) {
		y--
	}
	s := p.daySpan(y, m, d, 0.75)
	s.yearless, s.month, s.day = true, m, d
	return s
}

// latestMonth is month m's latest occurrence that began on or before as_of.
func (p *parser) latestMonth(m time.Month, conf float64) span {
	y := p.asOf.Year()
	if m > p.asOf.Month() {
		y--
	}
	return p.monthSpan(y, m, conf)
}

// latestSeason is season s's latest occurrence that began on or before
// as_of (ended, with strict).
func (p *parser) latestSeason(s season, strict bool, conf float64) span {
	first := func(y int) (time.Time, time.Time) {
		from := p.date(y, s.first, 1)
		return from, from.AddDate(0, 3, 0)
	}
	for y := p.asOf.Year(); y > p.asOf.Year()-3; y-- {
		from, to := first(y)
		if (!strict && !from.After(p.asOf)) || (strict && !to.After(p.today)) {
			return span{from: from, to: to, conf: conf}
		}
	}
	from, to := first(p.asOf.Year() - 1)
	return span{from: from, to: to, conf: conf}
}

// unitSpan is the calendar unit u containing t.
func (p *parser) unitSpan(u unit, t time.Time, conf float64) span {
	switch u {
	case unitDay:
		d := dayStart(t)
		return span{from: d, to: d.AddDate(0, 0, 1), conf: conf}
	case unitWeek:
		w := weekStart(t)
		return span{from: w, to: w.AddDate(0, 0, 7), conf: conf}
	case unitWeekend:
		sat := weekStart(t).AddDate(0, 0, 5)
		return span{from: sat, to: sat.AddDate(0, 0, 2), conf: conf}
	case unitMonth:
		return p.monthSpan(t.Year(), t.Month(), conf)
	case unitYear:
		return p.yearSpan(t.Year(), conf)
	case unitDecade:
		y := t.Year() - t.Year()%10
		return span{from: p.date(y, 1, 1), to: p.date(y+10, 1, 1), conf: conf}
	}
	return span{}
}

// shift moves t by n units.
func shift(t time.Time, u unit, n int) time.Time {
	switch u {
	case unitDay:
		return t.AddDate(0, 0, n)
	case unitWeek, unitWeekend:
		return t.AddDate(0, 0, 7*n)
	case unitMonth:
		return t.AddDate(0, n, 0)
	case unitYear:
		return t.AddDate(n, 0, 0)
	case unitDecade:
		return t.AddDate(10*n, 0, 0)
	}
	return t
}

// unitLength is a unit's nominal length.
func unitLength(u unit) time.Duration {
	const day = 24 * time.Hour
	switch u {
	case unitDay:
		return day
	case unitWeek:
		return 7 * day
	case unitWeekend:
		return 7 * day
	case unitMonth:
		return 30 * day
	case unitYear:
		return 365 * day
	case unitDecade:
		return 3652 * day
	}
	return 0
}

// part narrows s to its first (which 0), middle (1) or last (2) third.
func part(s span, which int) span {
	third := s.to.Sub(s.from) / 3
	out := s
	out.extra = nil
	out.from = s.from.Add(time.Duration(which) * third)
	out.to = out.from.Add(third)
	if which == 2 {
		out.to = s.to
	}
	return out
}
