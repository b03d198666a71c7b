package temporal

import (
	"strings"
	"testing"
	"time"
)

// asOf is a Friday afternoon.
var asOf = time.Date(2023, 10, 20, 15, 0, 0, 0, time.UTC)

// windowsOf renders a query's windows as "from..to" dates ("" for an open
// end), joined by "|".
func windowsOf(q Query) string {
	var out []string
	for _, w := range q.Windows {
		f, t := "", ""
		if !w.From.IsZero() {
			f = w.From.Format("2006-01-02")
		}
		if !w.To.IsZero() {
			t = w.To.Format("2006-01-02")
		}
		out = append(out, f+".."+t)
	}
	return strings.Join(out, "|")
}

func TestParseWindows(t *testing.T) {
	cases := []struct{ text, want string }{
		// absolute dates
		{"2023-05-07", "2023-05-07..2023-05-08"},
		{"on 2023/05/07 we met", "2023-05-07..2023-05-08"},
		{"in 2023-05", "2023-05-01..2023-06-01"},
		{"7 May 2023", "2023-05-07..2023-05-08"},
		{"7th of May, 2023", "2023-05-07..2023-05-08"},
		{"the 7th of May 2023", "2023-05-07..2023-05-08"},
		{"May 7th, 2023", "2023-05-07..2023-05-08"},
		{"May 7, 2023", "2023-05-07..2023-05-08"},
		{"on May the 7th", "2023-05-07..2023-05-08"},
		{"May 7th", "2023-05-07..2023-05-08"},
		// a weekday before a date is that date, not the latest such weekday
		{"on Sunday, May 7, 2023", "2023-05-07..2023-05-08"},
		{"what did I do on Tuesday, October 3?", "2023-10-03..2023-10-04"},
		{"Saturday 7 May 2023", "2023-05-07..2023-05-08"},
		{"December 25", "2022-12-25..2022-12-26"},
		{"25 December", "2022-12-25..2022-12-26"},
		{"Oct 20", "2023-10-20..2023-10-21"},
		{"Sept. 3, 2021", "2021-09-03..2021-09-04"},
		{"15/11/2023", "2023-11-15..2023-11-16"},
		{"11/15/2023", "2023-11-15..2023-11-16"},
		{"5/7/2023", "2023-05-07..2023-05-08"},
		{"30 February 2023", "2023-02-01..2023-03-01"},
		{"2023-13-01", "2023-01-01..2024-01-01"},
		// months and years
		{"in September 2023", "2023-09-01..2023-10-01"},
		{"during September of 2021", "2021-09-01..2021-10-01"},
		{"in September", "2023-09-01..2023-10-01"},
		{"in November", "2022-11-01..2022-12-01"},
		{"in October", "2023-10-01..2023-11-01"},
		{"When did Melanie go camping in June?", "2023-06-01..2023-07-01"},
		{"last September", "2023-09-01..2023-10-01"},
		{"last October", "2022-10-01..2022-11-01"},
		{"this March", "2023-03-01..2023-04-01"},
		{"next January", "2024-01-01..2024-02-01"},
		{"next November", "2023-11-01..2023-12-01"},
		{"in 2022", "2022-01-01..2023-01-01"},
		{"What happened in 1999?", "1999-01-01..2000-01-01"},
		{"the 1990s", "1990-01-01..2000-01-01"},
		{"last year", "2022-01-01..2023-01-01"},
		{"this year", "2023-01-01..2024-01-01"},
		{"next year", "2024-01-01..2025-01-01"},
		{"last month", "2023-09-01..2023-10-01"},
		{"this month", "2023-10-01..2023-11-01"},
		{"next month", "2023-11-01..2023-12-01"},
		{"early May 2023", "2023-05-01..2023-05-11"},
		{"late 2022", "2022-09-01..2023-01-01"},
		{"the end of 2022", "2022-09-01..2023-01-01"},
		{"the beginning of November 2022", "2022-11-01..2022-11-11"},
		{"the second week of November 2023", "2023-11-08..2023-11-15"},
		{"the last week of June 2023", "2023-06-24..2023-07-01"},
		{"the first week of May", "2023-05-01..2023-05-08"},
		// seasons
		{"summer 2022", "2022-06-01..2022-09-01"},
		{"the summer of 2022", "2022-06-01..2022-09-01"},
		{"last summer", "2023-06-01..2023-09-01"},
		{"this summer", "2023-06-01..2023-09-01"},
		{"next summer", "2024-06-01..2024-09-01"},
		{"during the summer", "2023-06-01..2023-09-01"},
		{"in the fall", "2023-09-01..2023-12-01"},
		{"last fall", "2022-09-01..2022-12-01"},
		{"autumn 2021", "2021-09-01..2021-12-01"},
		{"spring 2020", "2020-03-01..2020-06-01"},
		{"winter 2022", "2022-01-01..2022-03-01|2022-12-01..2023-01-01"},
		{"last winter", "2022-12-01..2023-03-01"},
		// relative
		{"yesterday", "2023-10-19..2023-10-20"},
		{"today", "2023-10-20..2023-10-21"},
		{"tonight", "2023-10-20..2023-10-21"},
		{"tomorrow", "2023-10-21..2023-10-22"},
		{"the day before yesterday", "2023-10-18..2023-10-19"},
		{"the day after tomorrow", "2023-10-22..2023-10-23"},
		{"last night", "2023-10-19..2023-10-20"},
		{"this morning", "2023-10-20..2023-10-21"},
		{"last week", "2023-10-09..2023-10-16"},
		{"this week", "2023-10-16..2023-10-23"},
		{"next week", "2023-10-23..2023-10-30"},
		{"last weekend", "2023-10-14..2023-10-16"},
		{"this weekend", "2023-10-21..2023-10-23"},
		{"last Friday", "2023-10-13..2023-10-14"},
		{"last Monday", "2023-10-16..2023-10-17"},
		{"on Tuesday", "2023-10-17..2023-10-18"},
		{"this Sunday", "2023-10-22..2023-10-23"},
		{"next Friday", "2023-10-27..2023-10-28"},
		{"3 days ago", "2023-10-17..2023-10-18"},
		{"three days ago", "2023-10-17..2023-10-18"},
		{"a day ago", "2023-10-19..2023-10-20"},
		{"a week ago", "2023-10-10..2023-10-17"},
		{"two weeks ago", "2023-10-03..2023-10-10"},
		{"a month ago", "2023-09-05..2023-10-05"},
		{"two years ago", "2021-04-21..2022-04-21"},
		{"a few years ago", "2019-10-21..2021-10-20"},
		{"a couple of months ago", "2023-07-21..2023-09-19"},
		// durations running up to now: they began that long ago
		{"I've been painting for two years now", "2021-04-21..2022-04-21"},
		{"I have been painting for two years", "2021-04-21..2022-04-21"},
		{"we've known each other for about ten years", "2010-10-21..2016-10-19"},
		{"she has worked there for 3 days", "2023-10-17..2023-10-18"},
		{"running for 5 months and counting", "2023-04-28..2023-06-12"},
		{"been learning guitar for a few years", "2019-10-21..2021-10-20"},
		{"in the last 3 days", "2023-10-17..2023-10-21"},
		{"over the past two weeks", "2023-10-06..2023-10-21"},
		{"in the past few months", "2023-07-20..2023-10-21"},
		{"the past week", "2023-10-13..2023-10-21"},
		{"within the last year", "2022-10-20..2023-10-21"},
		{"in the last week of June 2023", "2023-06-24..2023-07-01"},
		{"recently", "2023-09-20..2023-10-21"},
		{"lately", "2023-09-20..2023-10-21"},
		// open and ranges
		{"before June 2023", "..2023-06-01"},
		{"after 2021", "2022-01-01.."},
		{"since 2016", "2016-01-01.."},
		{"until March 2023", "..2023-04-01"},
		{"prior to 2020", "..2020-01-01"},
		{"by the end of 2022", "..2023-01-01"},
		{"between August 11 and August 15 2023", "2023-08-11..2023-08-16"},
		{"between 2019 and 2021", "2019-01-01..2022-01-01"},
		{"from May to July 2023", "2023-05-01..2023-08-01"},
		{"from 2020 until 2022", "2020-01-01..2023-01-01"},
		{"the week before 16 November 2023", "2023-11-09..2023-11-16"},
		{"the day after 1 May 2023", "2023-05-02..2023-05-03"},
		{"two weeks before 16 November 2023", "2023-11-02..2023-11-16"},
		{"the Friday before 15 July 2023", "2023-07-14..2023-07-15"},
		{"the Sunday after 15 July 2023", "2023-07-16..2023-07-17"},
		{"the weekend before 17 July 2023", "2023-07-10..2023-07-17"},
		// no window
		{"", ""},
		{"May I ask what you like?", ""},
		{"I march to the store", ""},
		{"she may come", ""},
		{"What is Caroline's favourite book?", ""},
		{"I have 2000 reasons", ""},
		{"version 2.0 of the app", ""},
		{"he ran 5 miles", ""},
		{"for 3 years", ""},
		{"I'll be away for 3 years", ""},
		{"I lived there for 3 years", ""},
		{"I've been busy. For 3 years I lived there", ""},
		{"one day I will", ""},
		{"the last time we spoke", ""},
		{"Sundays are for rest", ""},
		{"since he moved", ""},
		{"before she left", ""},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			if got := windowsOf(Parse(c.text, asOf)); got != c.want {
				t.Errorf("Parse(%q) windows = %q, want %q", c.text, got, c.want)
			}
		})
	}
}
