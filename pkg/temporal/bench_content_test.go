package temporal

import "testing"

// BenchmarkWindowsContent measures reading the times a memory's content
// names, which recall does for candidates of a query with a window.
func BenchmarkWindowsContent(b *testing.B) {
	text := "Jon: Hi Gina! I just wanted to fill you in on my business. Yesterday, I went to a fair to show off my studio, it was both stressful and great! I got some possible leads, so that was awesome. But overall, last week was tough."
	b.ReportAllocs()
	for b.Loop() {
		Windows(text, asOf)
	}
}
