package samefact

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	isoDate   = regexp.MustCompile(`^(\d{4})-(\d{2})(?:-(\d{2}))?(?:t(\d{2}):(\d{2}).*)?$`)
	slashDate = regexp.MustCompile(`^\d{1,2}[/.]\d{1,2}[/.](\d{2}|\d{4})$`)
	clock     = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::\d{2})?(am|pm|a\.m|p\.m)?$`)
	hourAmPm  = regexp.MustCompile(`^(\d{1,2})(am|pm|a\.m|p\.m)$`)
	dayNumber = regexp.MustCompile(`^(\d{1,2})(?:st|nd|rd|th)?$`)
	year      = regexp.MustCompile(`^(?:19|20)\d\d(?:s)?$`)
)

var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

// ambiguousMonths are months that are also ordinary words ("may",
// "march") or abbreviations: only a month when capitalised and next to a
// day or year, or after a preposition of time.
var ambiguousMonths = map[string]bool{"may": true, "march": true, "jan": true, "feb": true, "mar": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true}

var timePrepositions = map[string]bool{"in": true, "of": true, "since": true, "until": true, "till": true, "by": true,
	"on": true, "early": true, "late": true, "mid": true, "during": true, "from": true, "to": true, "before": true,
	"after": true, "next": true, "last": true, "this": true, "every": true}

var weekdays = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true,
	"saturday": true, "sunday": true}

// whenWords are relative days, parts of the day, frequencies and seasons.
var whenWords = map[string]string{
	"today": "today", "tomorrow": "tomorrow", "yesterday": "yesterday", "tonight": "tonight",
	"morning": "morning", "mornings": "morning", "afternoon": "afternoon", "afternoons": "afternoon",
	"evening": "evening", "evenings": "evening", "weekend": "weekend", "weekends": "weekend",
	"weekday": "weekday", "weekdays": "weekday", "hourly": "hourly", "daily": "daily", "nightly": "nightly",
	"weekly": "weekly", "biweekly": "biweekly", "fortnightly": "fortnightly", "monthly": "monthly",
	"quarterly": "quarterly", "yearly": "yearly", "annually": "yearly", "summer": "summer", "winter": "winter",
	"autumn": "autumn", "noon": "time 12:00", "midday": "time 12:00", "midnight": "time 00:00",
}

// date reads a date, a part of one, a weekday, a time or a year.
func (s *scanner) date() ([]Detail, int) {
	f := s.at(0)
	w := f.lower
	one := func(v string) ([]Detail, int) { return []Detail{{Kind: Date, Value: v, Text: f.raw}}, 1 }
	if m := isoDate.FindStringSubmatch(w); m != nil {
		out := []Detail{{Kind: Date, Value: "year " + m[1], Text: f.raw, part: true},
			{Kind: Date, Value: "month " + m[2], Text: f.raw, part: true}}
		if m[3] != "" {
			d, _ := strconv.Atoi(m[3])
			out = append(out, Detail{Kind: Date, Value: "day " + strconv.Itoa(d), Text: f.raw, part: true})
		}
		if m[4] != "" {
			out = append(out, Detail{Kind: Date, Value: "time " + m[4] + ":" + m[5], Text: f.raw, part: true})
		}
		return out, 1
	}
	if slashDate.MatchString(w) {
		return one("date " + strings.ReplaceAll(w, ".", "/"))
	}
	if v, n := s.clockTime(); n > 0 {
		text := f.raw
		if n > 1 {
			text += " " + s.at(1).raw
		}
		return []Detail{{Kind: Date, Value: v, Text: text}}, n
	}
	if mo, ok := s.month(0); ok {
		out := []Detail{{Kind: Date, Value: fmt.Sprintf("month %02d", mo), Text: f.raw, part: true}}
		if d, ok := day(s.at(1)); ok && !s.dayBefore() {
			out[0].Text += " " + s.at(1).raw
			return append(out, Detail{Kind: Date, Value: "day " + strconv.Itoa(d), Text: out[0].Text, part: true}), 2
		}
		return out, 1
	}
	if d, ok := day(f); ok {
		if _, ok := s.monthAfterDay(); ok {
			return []Detail{{Kind: Date, Value: "day " + strconv.Itoa(d), Text: f.raw, part: true}}, 1
		}
	}
	if wd := strings.TrimSuffix(w, "s"); weekdays[wd] {
		return one("weekday " + wd)
	}
	if v, ok := whenWords[w]; ok {
		if !strings.HasPrefix(v, "time ") {
			v = "when " + v
		}
		return one(v)
	}
	if year.MatchString(w) {
		return one("year " + w)
	}
	return nil, 0
}

// clockTime reads "15:00", "3:30pm", "3pm" or "3 pm" as "time HH:MM" and
// how many fields it spans.
func (s *scanner) clockTime() (string, int) {
	w := s.at(0).lower
	var h, m int
	var ampm string
	n := 1
	if c := clock.FindStringSubmatch(w); c != nil {
		h, _ = strconv.Atoi(c[1])
		m, _ = strconv.Atoi(c[2])
		ampm = c[3]
	} else if c := hourAmPm.FindStringSubmatch(w); c != nil {
		h, _ = strconv.Atoi(c[1])
		ampm = c[2]
	} else if allDigits(w) && len(w) <= 2 {
		switch next := s.at(1).lower; next {
		case "am", "pm", "a.m", "p.m":
			h, _ = strconv.Atoi(w)
			ampm, n = next, 2
		default:
			return "", 0
		}
	} else {
		return "", 0
	}
	switch {
	case m > 59, h > 23, ampm != "" && (h < 1 || h > 12):
		return "", 0
	case strings.HasPrefix(ampm, "p") && h < 12:
		h += 12
	case strings.HasPrefix(ampm, "a") && h == 12:
		h = 0
	}
	return fmt.Sprintf("time %02d:%02d", h, m), n
}

// month reports the month named by the field at offset k.
func (s *scanner) month(k int) (int, bool) {
	f := s.at(k)
	mo, ok := months[f.lower]
	if !ok {
		return 0, false
	}
	if !ambiguousMonths[f.lower] {
		return mo, true
	}
	r, _ := utf8.DecodeRuneInString(f.raw)
	if !unicode.IsUpper(r) {
		return 0, false
	}
	if _, ok := day(s.at(k + 1)); ok || year.MatchString(s.at(k+1).lower) {
		return mo, true
	}
	if _, ok := day(s.at(k - 1)); ok {
		return mo, true
	}
	if s.at(k-1).lower == "of" {
		if _, ok := day(s.at(k - 2)); ok {
			return mo, true
		}
	}
	return mo, !f.start && timePrepositions[s.at(k-1).lower]
}

// dayBefore reports a day number just before the current month ("5 May",
// "5th of May"): the number after the month is then no day.
func (s *scanner) dayBefore() bool {
	if _, ok := day(s.at(-1)); ok {
		return true
	}
	_, ok := day(s.at(-2))
	return ok && s.at(-1).lower == "of"
}

// monthAfterDay reports a month after the current day number.
func (s *scanner) monthAfterDay() (int, bool) {
	if s.at(1).lower == "of" {
		return s.month(2)
	}
	return s.month(1)
}

// day reads a day of the month: 1 to 31, maybe with an ordinal suffix.
func day(f field) (int, bool) {
	m := dayNumber.FindStringSubmatch(f.lower)
	if m == nil {
		return 0, false
	}
	d, _ := strconv.Atoi(m[1])
	return d, d >= 1 && d <= 31
}
