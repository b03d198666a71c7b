package recall

import "testing"

func TestSessionOrdinal(t *testing.T) {
	for q, want := range map[string]int{
		"Which error did I run into in our fourth session, and how did we fix it?": 4,
		"What did we decide in our first session?":                                 1,
		"what did I ask in my 2nd conversation":                                    2,
		"In the 11th session we picked a database":                                 11,
		"What did we talk about in our last session?":                              -1,
		"Summarise our most recent chat":                                           -1,
		"What did we settle in the twelfth session?":                               12,
	} {
		n, ok := sessionOrdinal(q)
		if !ok || n != want {
			t.Errorf("sessionOrdinal(%q) = %d, %v; want %d", q, n, ok, want)
		}
	}
	for _, q := range []string{
		"What was the first error we hit?",
		"Which session timeout did we choose?",
		"Our session cookies expire after an hour",
		"In the 0th session",
		"the fourth sessionStorage key",
	} {
		if n, ok := sessionOrdinal(q); ok {
			t.Errorf("sessionOrdinal(%q) = %d: names no session", q, n)
		}
	}
}
