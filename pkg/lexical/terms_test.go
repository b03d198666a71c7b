package lexical

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"plain words", "Run make test", []string{"run", "make", "test"}},
		{"stemming", "committing commits committed", []string{"commit", "commit", "commit"}},
		{"stopwords dropped", "the cat and the hat", []string{"cat", "hat"}},
		{"only stopwords", "What is it that they were doing?", nil},
		{"product names stay whole", "pgvector and PostgreSQL", []string{"pgvector", "postgresql", "postgr", "sql"}},
		{"camel case whole and humps", "getUserName", []string{"getusername", "get", "user", "name"}},
		{"pascal case with an acronym", "HTTPServer", []string{"httpserver", "http", "server"}},
		{"digit before a hump", "utf8Decode", []string{"utf8decode", "utf8", "decod"}},
		{"capitalised word is not camel", "Hello World UPPER", []string{"hello", "world", "upper"}},
		{"method call", "foo.bar()", []string{"foo.bar", "foo", "bar"}},
		{"camel part of a joined word", "user.getName()", []string{"user.getname", "user", "getname", "get", "name"}},
		{"snake case identifier", "user_name = 1", []string{"user_name", "user", "name", "1"}},
		{"possessive of a camel word", "JavaScript's closures", []string{"javascript", "java", "script", "closur"}},
		{"snake case whole and parts", "snake_case", []string{"snake_case", "snake", "case"}},
		{"file name", "file.go", []string{"file.go", "file", "go"}},
		{"hyphenated", "pre-commit hooks", []string{"pre-commit", "pre", "commit", "hook"}},
		{"path", "pkg/store/local", []string{"pkg/store/local", "pkg", "store", "local"}},
		{"host and port", "localhost:8080", []string{"localhost:8080", "localhost", "8080"}},
		{"version", "v1.2.3", []string{"v1.2.3", "v1", "2", "3"}},
		{"sentence end is not a joiner", "Use Go. Then test.", []string{"use", "go", "test"}},
		{"doubled joiners split", "ab--cd ef..gh", []string{"ab", "cd", "ef", "gh"}},
		{"possessive", "Caroline's guitar", []string{"carolin", "guitar"}},
		{"curly apostrophe contraction", "don\u2019t forget", []string{"forget"}},
		{"possessive of a joined word", "file.go's header", []string{"file.go", "file", "go", "header"}},
		{"single letters dropped, digits kept", "a b c 7 x86", []string{"7", "x86"}},
		{"c++ and c#", "C++ and C#, F# or c", []string{"c++", "c#", "f#"}},
		{"plus inside a word is not c++", "cc++xyz", []string{"cc", "xyz"}},
		{"numbers", "In 2023 it cost 3.50", []string{"2023", "cost", "3.50", "3", "50"}},
		{"non-English letters unstemmed", "Café naïve STRASSE Straße", []string{"café", "naïve", "strass", "straße"}},
		{"combining mark stays in word", "cafe\u0301 time", []string{"cafe\u0301", "time"}},
		{"chinese bigrams", "机器学习", []string{"机器", "器学", "学习"}},
		{"single han character", "猫", []string{"猫"}},
		{"japanese with prolonged mark", "コーヒー", []string{"コー", "ーヒ", "ヒー"}},
		{"korean", "한국어", []string{"한국", "국어"}},
		{"mixed scripts", "Go语言 rocks", []string{"go", "语言", "rock"}},
		{"cjk punctuation splits runs", "学习。机器", []string{"学习", "机器"}},
		{"too long dropped", strings.Repeat("x", maxTermBytes+1) + " ok", []string{"ok"}},
		{"punctuation only", "--- ... !!!", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Terms(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("Terms(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
			checkAnyTerm(t, tc.text, tc.want)
		})
	}
}

// FuzzTerms checks what any input must give: valid, non-empty, short,
// lowercase terms that are not stopwords, and the same terms every time.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"make test", "snake_case file.go", "C++ c#", "机器学习", "a\xffb", "x.-y", "'''", "Ünïcödé-wörds"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms := Terms(text)
		for _, term := range terms {
			switch {
			case term == "":
				t.Fatalf("Terms(%q) has an empty term", text)
			case !utf8.ValidString(term):
				t.Fatalf("Terms(%q) has invalid UTF-8 term %q", text, term)
			case len(term) > maxTermBytes+2: // "c++"-style suffixes aside
				t.Fatalf("Terms(%q) has a %d-byte term", text, len(term))
			case stopwords[term]:
				t.Fatalf("Terms(%q) kept stopword %q", text, term)
			}
		}
		if again := Terms(text); !slices.Equal(terms, again) {
			t.Fatalf("Terms(%q) is not deterministic: %q then %q", text, terms, again)
		}
		checkAnyTerm(t, text, terms)
	})
}

// checkAnyTerm checks AnyTerm against the list of text's terms: it finds
// each of them, visits them in order, and finds nothing else.
func checkAnyTerm(t *testing.T, text string, terms []string) {
	t.Helper()
	for _, want := range terms {
		if !AnyTerm(text, func(term string) bool { return term == want }) {
			t.Fatalf("AnyTerm(%q) does not find its term %q", text, want)
		}
	}
	var seen []string
	if AnyTerm(text, func(term string) bool { seen = append(seen, term); return false }) {
		t.Fatalf("AnyTerm(%q) reported a match no term made", text)
	}
	if !slices.Equal(seen, terms) {
		t.Fatalf("AnyTerm(%q) visited %q, Terms gives %q", text, seen, terms)
	}
}

func TestStopwordsAreNormalized(t *testing.T) {
	for w := range stopwords {
		if w != strings.ToLower(w) || strings.ContainsRune(w, '\u2019') {
			t.Errorf("stopword %q is not lowercase with straight apostrophes, so it can never match", w)
		}
	}
}
