package temporal

import "testing"

// BenchmarkParse measures a typical question with a window and one
// without: parsing runs on every recall.
func BenchmarkParse(b *testing.B) {
	for _, q := range []string{
		"Which country was Tim visiting in the second week of November 2023?",
		"What is Caroline's favourite book and why does she like it so much?",
	} {
		b.Run(q[:12], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(q, asOf)
			}
		})
	}
}

// BenchmarkMentions measures the check recall runs on candidates' content.
func BenchmarkMentions(b *testing.B) {
	text := "Jon: Hi Gina! I just wanted to fill you in on my business. Yesterday, I went to a fair to show off my studio, it was both stressful and great!"
	b.ReportAllocs()
	for b.Loop() {
		Mentions(text)
	}
}
