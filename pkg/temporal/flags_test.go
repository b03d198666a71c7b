package temporal

import (
	"fmt"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	cases := []struct {
		text                 string
		when, past, isRecent bool
	}{
		{"When did Caroline go to the LGBTQ support group?", true, false, false},
		{"when is the talent show", true, false, false},
		{"What did she do when she moved?", false, false, false},
		{"Since when has he lived there?", true, false, false},
		{"How long has Caroline had her friends?", true, false, false},
		{"How many years has she painted?", true, false, false},
		{"What year did he graduate?", true, false, false},
		{"Which month was the trip?", true, false, false},
		{"What was her original job? What did she originally do?", false, true, false},
		{"Where did he used to live?", false, true, false},
		{"What did they think at first?", false, true, false},
		{"What was the first car he bought?", false, true, false},
		{"What did she do before moving?", false, true, false},
		{"What did she do before June 2023?", false, false, false},
		{"What was the test coverage previously?", false, true, false},
		{"Does he still play chess?", false, false, true},
		{"What is her current job?", false, false, true},
		{"What is he reading now?", false, false, true},
		{"What has she been up to recently?", false, false, true},
		{"What are the latest numbers?", false, false, true},
		{"in the past few months", false, false, false},
		{"What is Caroline's favourite book?", false, false, false},
		{"How old is he?", false, false, false},
	}
	for _, c := range cases {
		q := Parse(c.text, asOf)
		if q.AsksWhen != c.when || q.Past != c.past || q.Recent != c.isRecent {
			t.Errorf("Parse(%q): when=%v past=%v recent=%v, want %v %v %v (terms %q)",
				c.text, q.AsksWhen, q.Past, q.Recent, c.when, c.past, c.isRecent, q.Terms)
		}
	}
}

func TestParsePastTense(t *testing.T) {
	for text, want := range map[string]bool{
		"What did Melanie paint?": true, "Where was John last week?": true, "Were they happy?": true,
		"Why didn't he come?": true, "What is Gina's favourite dance?": false, "Does he still play chess?": false,
		"What has she been reading?": true, "Which editors have I used?": true, "How has the date of the demo moved?": true,
		"Which databases has photo-tagger run on?": true, "Which errors have we fixed so far?": true,
		"What do I have to do next?": false, "Which database does ledger-api use?": false, "When is the cutover due?": false,
		"Have you the time?": false, "What does he have in the fridge that is used for soup?": false,
	} {
		if got := Parse(text, asOf).PastTense; got != want {
			t.Errorf("Parse(%q).PastTense = %v, want %v", text, got, want)
		}
	}
}

func TestParseTermsAndConfidence(t *testing.T) {
	q := Parse("What did Joanna accomplish in January 2022, and what about yesterday?", asOf)
	if len(q.Windows) != 2 || q.Windows[0].Text != "January 2022" || q.Windows[1].Text != "yesterday" {
		t.Fatalf("windows %+v", q.Windows)
	}
	if q.Windows[0].Confidence <= Parse("in January", asOf).Windows[0].Confidence {
		t.Error("a month with its year should be surer than a month alone")
	}
	if r := Parse("recently", asOf).Windows[0].Confidence; r >= 0.5 {
		t.Errorf("recently is a weak window, got confidence %v", r)
	}
	if !q.AsOf.Equal(asOf) {
		t.Errorf("as_of %v", q.AsOf)
	}
	if (Query{}).Empty() != true || Parse("yesterday", asOf).Empty() {
		t.Error("Empty")
	}
}

// TestParseEveryDay writes every day of two years in four ways.
func TestParseEveryDay(t *testing.T) {
	for d := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2025; d = d.AddDate(0, 0, 1) {
		want := d.Format("2006-01-02") + ".." + d.AddDate(0, 0, 1).Format("2006-01-02")
		for _, text := range []string{
			d.Format("2006-01-02"),
			d.Format("2 January 2006"),
			d.Format("January 2, 2006"),
			fmt.Sprintf("on the %d%s of %s %d", d.Day(), suffix(d.Day()), d.Month(), d.Year()),
		} {
			if got := windowsOf(Parse(text, asOf)); got != want {
				t.Fatalf("Parse(%q) = %q, want %q", text, got, want)
			}
		}
	}
}

func suffix(d int) string {
	switch {
	case d%10 == 1 && d != 11:
		return "st"
	case d%10 == 2 && d != 12:
		return "nd"
	case d%10 == 3 && d != 13:
		return "rd"
	}
	return "th"
}

// TestParseEveryMonth writes every month of three years in three ways and
// alone (its latest occurrence up to as_of).
func TestParseEveryMonth(t *testing.T) {
	for y := 2021; y <= 2023; y++ {
		for m := time.January; m <= time.December; m++ {
			from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			want := from.Format("2006-01-02") + ".." + from.AddDate(0, 1, 0).Format("2006-01-02")
			for _, text := range []string{
				fmt.Sprintf("in %s %d", m, y), fmt.Sprintf("during %s of %d", m, y), fmt.Sprintf("%d-%02d", y, int(m)),
			} {
				if got := windowsOf(Parse(text, asOf)); got != want {
					t.Errorf("Parse(%q) = %q, want %q", text, got, want)
				}
			}
		}
	}
	for m := time.January; m <= time.December; m++ {
		y := 2023
		if m > time.October {
			y = 2022
		}
		from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		want := from.Format("2006-01-02") + ".." + from.AddDate(0, 1, 0).Format("2006-01-02")
		if got := windowsOf(Parse("in "+m.String(), asOf)); got != want {
			t.Errorf("Parse(in %s) = %q, want %q", m, got, want)
		}
	}
}

// TestParseAgo checks "n units ago" for n 1-12 in digits and words: the
// window holds as_of less n units.
func TestParseAgo(t *testing.T) {
	words := []string{"", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	for n := 1; n <= 12; n++ {
		for _, u := range []struct {
			name string
			back func(int) time.Time
		}{
			{"days", func(n int) time.Time { return asOf.AddDate(0, 0, -n) }},
			{"weeks", func(n int) time.Time { return asOf.AddDate(0, 0, -7*n) }},
			{"months", func(n int) time.Time { return asOf.AddDate(0, -n, 0) }},
			{"years", func(n int) time.Time { return asOf.AddDate(-n, 0, 0) }},
		} {
			for _, count := range []string{fmt.Sprint(n), words[n]} {
				text := count + " " + u.name + " ago"
				q := Parse(text, asOf)
				if len(q.Windows) != 1 || !q.Windows[0].Contains(u.back(n)) {
					t.Errorf("Parse(%q) = %s, want a window holding %s", text, windowsOf(q), u.back(n).Format(time.DateOnly))
				}
			}
		}
	}
}

func TestMentions(t *testing.T) {
	yes := []string{
		"I went to a fair yesterday", "We met last Friday", "it was 3 years ago", "In 2022 I moved",
		"the wedding was last week", "see you tomorrow!", "I've had them for 3 years now", "since I was a kid",
		"Back in June we went camping", "we spent the summer at the lake", "every Saturday we hike", "Happy birthday!",
		"fasting for three days now", "it took 3 days", "a few days later",
	}
	no := []string{"I love painting sunsets", "That's for sure!", "May I ask you something?", "version 2.0.1", "", "Hey, what's up?",
		"these days I paint", "the good old days", "days like this"}
	for _, s := range yes {
		if !Mentions(s) {
			t.Errorf("Mentions(%q) = false", s)
		}
	}
	for _, s := range no {
		if Mentions(s) {
			t.Errorf("Mentions(%q) = true", s)
		}
	}
}

func TestWindowMethods(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2023, 5, d, 0, 0, 0, 0, time.UTC) }
	w := Window{From: day(10), To: day(20)}
	if !w.Contains(day(10)) || w.Contains(day(20)) || w.Contains(day(9)) {
		t.Error("Contains")
	}
	if b, a := w.Gap(day(8)); b != 48*time.Hour || a != 0 {
		t.Errorf("Gap before: %v %v", b, a)
	}
	if b, a := w.Gap(day(21)); b != 0 || a != 24*time.Hour {
		t.Errorf("Gap after: %v %v", b, a)
	}
	if w.Width() != 240*time.Hour || (Window{To: day(3)}).Width() != 0 {
		t.Error("Width")
	}
	if !w.Overlaps(Window{From: day(19), To: day(25)}) || w.Overlaps(Window{From: day(20), To: day(25)}) || !w.Overlaps(Window{To: day(11)}) {
		t.Error("Overlaps")
	}
}
