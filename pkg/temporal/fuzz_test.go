package temporal

import (
	"strings"
	"testing"
	"time"
)

// FuzzParse: Parse never panics, every window is well formed (not open on
// both sides, From before To, confidence in (0, 1], text from the input),
// and Mentions agrees to answer.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"When did Melanie go camping in June?", "between August 11 and August 15 2023", "the week before 16 November 2023",
		"2023-05-07", "5/7/2023", "a couple of months ago", "the beginning of November 2022", "from May to July 2023",
		"last winter", "mid-2022", "the 1990s", "Sept. 3, 2021", "the second week of November", "in the last 3 days",
		"the Friday before 15 July 2023", "9999-99-99", "31/31/2023", "May May May 2023", "before before before",
	} {
		f.Add(s, int64(1697814000))
	}
	f.Fuzz(func(t *testing.T, text string, unix int64) {
		asOf := time.Unix(unix%(1<<33), 0).UTC()
		q := Parse(text, asOf)
		for _, w := range q.Windows {
			if w.From.IsZero() && w.To.IsZero() {
				t.Fatalf("window open on both sides: %+v", w)
			}
			if !w.From.IsZero() && !w.To.IsZero() && !w.From.Before(w.To) {
				t.Fatalf("window ends before it starts: %+v", w)
			}
			if w.Confidence <= 0 || w.Confidence > 1 {
				t.Fatalf("confidence out of (0, 1]: %+v", w)
			}
			if w.Text == "" || !strings.Contains(text, w.Text) {
				t.Fatalf("window text %q not from %q", w.Text, text)
			}
		}
		_ = Mentions(text)
	})
}
