package lexical

import (
	"math/rand/v2"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestStemKnownWords(t *testing.T) {
	// Pairs from the Snowball English stemmer's published vocabulary.
	for in, want := range map[string]string{
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consist": "consist", "consisted": "consist", "consistency": "consist", "consistent": "consist",
		"consistently": "consist", "consisting": "consist", "consists": "consist",
		"consolation": "consol", "consolations": "consol", "consolatory": "consolatori",
		"console": "consol", "consoled": "consol", "consoles": "consol", "consolidate": "consolid",
		"consolidated": "consolid", "consolidating": "consolid", "consoling": "consol",
		"knack": "knack", "knackeries": "knackeri", "knaves": "knave", "knavish": "knavish",
		"kneaded": "knead", "kneading": "knead", "knee": "knee", "kneel": "kneel", "kneeled": "kneel",
		"knees": "knee", "knell": "knell", "knew": "knew", "knick": "knick", "knif": "knif",
		"knife": "knife", "knight": "knight", "knightly": "knight", "knights": "knight",
		"generously": "generous", "communication": "communic", "arsenal": "arsenal",
		"committing": "commit", "commits": "commit", "committed": "commit", "hoping": "hope",
		"hopping": "hop", "cries": "cri", "ties": "tie", "gaps": "gap", "gas": "gas", "this": "this",
		"caresses": "caress", "skies": "sky", "dying": "die", "sayings": "say", "yearly": "year",
		"rationalization": "ration", "o'neil's": "o'neil", "agreed": "agre", "feed": "feed",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStemMatchesSnowball compares stem with github.com/kljensen/snowball,
// which passes the Snowball project's English vocabulary, on words built to
// reach every rule: stems of varied shapes with every suffix the steps
// look for, stacked up to three deep.
func TestStemMatchesSnowball(t *testing.T) {
	suffixes := []string{"", "s", "es", "ies", "ied", "sses", "us", "ss", "'s", "'", "'s'",
		"ed", "edly", "ing", "ingly", "eed", "eedly", "y", "ly", "li",
		"ational", "tional", "enci", "anci", "abli", "entli", "izer", "ization", "ation", "ator",
		"alism", "aliti", "alli", "fulness", "ousli", "ousness", "iveness", "iviti", "biliti",
		"bli", "logi", "fulli", "lessli", "alize", "icate", "iciti", "ical", "ful", "ness", "ative",
		"ement", "ance", "ence", "able", "ible", "ment", "ent", "ant", "ism", "ate", "iti", "ous",
		"ive", "ize", "sion", "tion", "ion", "al", "er", "ic", "e", "ll", "l", "at", "bl", "iz"}
	stems := []string{"gener", "commun", "arsen", "hop", "tap", "fil", "bat", "rat", "sky", "ski",
		"cry", "say", "yell", "bey", "play", "ab", "ow", "ax", "cons", "beaut", "nation", "relat",
		"hope", "riv", "a", "e", "y", "ye", "yy", "oy", "st", "kn", "triv", "crit", "log", "ped"}
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	vowels := "aeiouy"
	checked := 0
	check := func(w string) {
		checked++
		if got, want := stem(w), english.Stem(w, true); got != want {
			t.Errorf("stem(%q) = %q, snowball says %q", w, got, want)
		}
	}
	for _, st := range stems {
		for _, a := range suffixes {
			for _, b := range suffixes {
				check(st + a + b)
			}
		}
	}
	for range 200_000 {
		n := 1 + rng.IntN(6)
		w := make([]byte, 0, 24)
		for range n {
			if rng.IntN(2) == 0 {
				w = append(w, vowels[rng.IntN(len(vowels))])
			} else {
				w = append(w, letters[rng.IntN(len(letters))])
			}
		}
		w = append(w, suffixes[rng.IntN(len(suffixes))]...)
		w = append(w, suffixes[rng.IntN(len(suffixes))]...)
		w = append(w, suffixes[rng.IntN(len(suffixes))]...)
		check(string(w))
		if t.Failed() && checked > 50 {
			t.FailNow()
		}
	}
}

func BenchmarkStem(b *testing.B) {
	words := []string{"committing", "rationalization", "preferences", "running", "generously", "knightly", "pushing", "configuration"}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			stem(w)
		}
	}
	b.ReportMetric(float64(b.N*len(words))/b.Elapsed().Seconds(), "words/s")
}
