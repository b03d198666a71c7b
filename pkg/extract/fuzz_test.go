package extract

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// encodeFacts writes facts in the asked-for shape, {"facts": [...]}.
func encodeFacts(t *testing.T, facts []rawFact) string {
	t.Helper()
	type out struct {
		Key      string   `json:"key,omitempty"`
		Value    string   `json:"value"`
		Type     string   `json:"type,omitempty"`
		Kind     string   `json:"kind,omitempty"`
		Tags     []string `json:"tags,omitempty"`
		Explicit *bool    `json:"explicit,omitempty"`
		Evidence string   `json:"evidence,omitempty"`
	}
	list := make([]out, len(facts))
	for i, f := range facts {
		list[i] = out{f.Key, f.Value, f.Type, f.Kind, f.Tags, f.Explicit, f.Evidence}
	}
	b, err := json.Marshal(map[string]any{"facts": list})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParseAnswer feeds model answers to the extraction parser: it never
// panics, every fact it returns has a value, and the facts it read, written
// back in the asked-for shape, read the same, cleanly. Seeds:
// testdata/fuzz/FuzzParseAnswer.
func FuzzParseAnswer(f *testing.F) {
	f.Add(`{"facts":[{"key":"city","value":"Lisbon","type":"fact","tags":["home"],"explicit":true,"evidence":"I moved to Lisbon"}]}`)
	f.Add("Here you go:\n```json\n[{\"fact\": \"likes tea\", \"category\": \"Preference\", \"tags\": \"drinks, #tea\",},]\n```")
	f.Add(`{"preferences":[{"name":"editor","content":"vim"}],"pitfalls":["never run rm -rf"]}`)
	f.Add(`{"facts":[{"value":"complete one"},{"value":"cut off`)
	f.Fuzz(func(t *testing.T, content string) {
		facts, how, err := parseAnswer(content)
		if err != nil {
			if len(facts) != 0 {
				t.Fatalf("error %v with %d facts", err, len(facts))
			}
			return
		}
		if how == "" {
			t.Fatal("facts without saying how they were read")
		}
		for i, f := range facts {
			if f.Value == "" {
				t.Fatalf("fact %d has no value: %+v", i, f)
			}
		}
		if !utf8.ValidString(content) || len(facts) == 0 {
			return // invalid UTF-8 is replaced on the way: no exact round trip
		}
		written := encodeFacts(t, facts)
		again, how2, err := parseAnswer(written)
		if err != nil || how2 != parsedClean {
			t.Fatalf("our own encoding of the facts reads %q, %v", how2, err)
		}
		// Compared encoded: no tags and an empty tag list are the same.
		if got := encodeFacts(t, again); got != written {
			t.Fatalf("facts changed when written back:\n got %s\nwant %s", got, written)
		}
	})
}
