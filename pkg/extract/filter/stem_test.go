package filter

import "testing"

// TestStem: forms that must meet, and words the stemmer must leave alone.
func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"prefer", "prefers", "preferred", "preferring"},
		{"commit", "commits", "committed", "committing"},
		{"use", "uses", "used", "using"},
		{"decide", "decides", "decided", "deciding"},
		{"try", "tries", "tried", "trying"},
		{"push", "pushes", "pushed", "pushing"},
		{"cache", "caches", "cached", "caching"},
		{"space", "spaces"},
		{"fall", "falling"},
		{"status", "statuses"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: want equal", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
	for _, w := range []string{"string", "red", "bus", "analysis", "go", "k8s", "Go"} {
		if stem(w) != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, stem(w))
		}
	}
}
