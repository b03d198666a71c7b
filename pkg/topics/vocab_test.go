package topics

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fieldWords is words as it was first written: lowercase the whole text,
// then split it. eachWord must split and lower the same way.
func fieldWords(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		digits := true
		for _, r := range f {
			digits = digits && unicode.IsDigit(r)
		}
		if utf8.RuneCountInString(f) >= 2 && !stopwords[f] && !digits {
			out = append(out, f)
		}
	}
	return out
}

func TestWordsLikeLowerThenSplit(t *testing.T) {
	for _, text := range []string{
		"The user prefers Docker-Compose for deployments!",
		"İstanbul ISTANBUL straße STRASSE ΣΟΦΙΑ σοφία",
		"ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ⅫⅣ roman Ⓐⓑ circled",
		"bad \xff\xfeutf8\xc3 bytes\x80here",
		"digits ٣٤٥ mixed ٣x 12ab 2024",
		"emoji 🚀launch🚀 tabs\tand\nnewlines",
		"",
		"a",
		"ǅungla ǈ Ǳ title-case digraphs",
	} {
		got, want := words(text), fieldWords(text)
		if !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", text, got, want)
		}
	}
}

func FuzzWordsLikeLowerThenSplit(f *testing.F) {
	f.Add("The user prefers Docker-Compose")
	f.Add("İ \xff ǅ")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := words(text), fieldWords(text); !slices.Equal(got, want) {
			t.Fatalf("words(%q) = %q, want %q", text, got, want)
		}
	})
}
