package recall

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestAsksName(t *testing.T) {
	for q, want := range map[string]bool{
		"What city did Tim suggest for the trip?":      true,
		"which books has Melanie read?":                true,
		"  What language is Tim learning?":             true,
		"What band did they see?":                      true,
		"What did Tim suggest for the trip?":           false, // asks for anything
		"Where do ledger-api and dashboard-web run?":   false, // where and who are left out
		"Who did John go to yoga with?":                false,
		"What citystate is it?":                        false, // a word, not a prefix
		"Tell me what city Tim suggested":              false, // not the question's head
		"What is the capital city of the new country?": false,
	} {
		if got := asksName(q); got != want {
			t.Errorf("asksName(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestNameFocus(t *testing.T) {
	turn := func(content string) hit {
		return hit{candidate: candidate{mem: &memory.Memory{Content: content, Tags: []string{memory.TranscriptTag}}}}
	}
	hits := []hit{turn("Tim: hi John"), turn("John: hi Tim")}
	f := newNameFocus("What city did Tim suggest for the trip?", hits)
	if f == nil {
		t.Fatal("no focus for a question asking for a city")
	}
	for text, want := range map[string]bool{
		"Tim: Edinburgh would be great. It has history.":           false, // sentence start
		"Tim: It would be great, Edinburgh has history.":           true,
		"Tim: Thanks, John! It would be great for you.":            false, // a speaker
		"Tim: I think so too, I'm sure I'll go on Friday in June.": false, // I, weekdays, months
		"Tim: The trip, said Tim, is what I'd suggest.":            false, // the question's words
		"Tim: Trust me: Rome is lovely.":                           false, // a colon starts a sentence
		"Tim: we could try the new place in São Paulo!":            true,
		"Tim: see \"Dune\" first":                                  false, // a quote starts one
		"plain fact without names":                                 false,
	} {
		m := memory.Memory{Content: text, Tags: []string{memory.TranscriptTag}}
		if got := f.factor(&m) != 1; got != want {
			t.Errorf("names %q = %v, want %v", text, got, want)
		}
	}
	if newNameFocus("What did Tim suggest?", hits) != nil {
		t.Error("a focus for a question that asks for no name")
	}
	var none *nameFocus
	if got := none.factor(&memory.Memory{Content: "It is in Rome"}); got != 1 {
		t.Errorf("nil focus factor %v, want 1", got)
	}
}
