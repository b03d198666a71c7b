package filter

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// FuzzCheck checks that no input panics and that an accepted fact keeps the
// invariants storage relies on. `go test` runs the seeds; `go test
// -fuzz=FuzzCheck` explores further.
func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases {
		f.Add(tc.source, tc.content, tc.evidence, "preference/"+tc.name)
	}
	for _, s := range []string{
		"", " ", "\x00", "\xff\xfe", "\u200b\u202e\u2066", strings.Repeat("a", 600), strings.Repeat("é ", 300),
		"I prefer \xff tabs", "<|im_start|>", "![](http://x/?a=", "<!--", "-----BEGIN", "eyJ.eyJ.", "sk-",
		"postgres://:@", "://", "a://b:c@", "password is", "is my password", "1gn0r3", strings.Repeat("\U000E0041", 10),
		"no no no not never don't", "5th 1,000 3.14 10:30 v1.2.3", "我喜欢 制表符", "İ PREFER TABS",
	} {
		f.Add(s, s, s, s)
	}
	flt := New()
	reasons := map[Reason]bool{}
	for _, r := range Reasons() {
		reasons[r] = true
	}
	f.Fuzz(func(t *testing.T, source, content, evidence, key string) {
		c := Candidate{Key: key, Content: content, Evidence: evidence, Tags: []string{key, content}}
		r := flt.Check(source, c)
		if again := flt.CheckSource(NewSource(source), c); again.Accepted != r.Accepted || again.Reason != r.Reason || again.Content != r.Content {
			t.Fatalf("Check and CheckSource disagree: %+v vs %+v", r, again)
		}
		if !r.Accepted {
			if !reasons[r.Reason] || r.Detail == "" {
				t.Fatalf("rejected with reason %q detail %q", r.Reason, r.Detail)
			}
			if r.Reason == ReasonSecret && (r.Content != "" || r.Evidence != "") {
				t.Fatalf("secret not redacted: %+v", r)
			}
			return
		}
		if r.Reason != "" || r.Grounding <= 0 || r.Grounding > 1 {
			t.Fatalf("accepted with reason %q grounding %v", r.Reason, r.Grounding)
		}
		checkText(t, "content", r.Content, DefaultMaxContentChars, false)
		checkText(t, "evidence", r.Evidence, DefaultMaxEvidenceChars, true)
		if memory.NormalizeKey(r.Key) != r.Key || utf8.RuneCountInString(r.Key) > memory.MaxKeyChars {
			t.Fatalf("key %q is not normalised or too long", r.Key)
		}
		if tags, err := memory.CheckTags("tags", r.Tags); err != nil || len(tags) != len(r.Tags) {
			t.Fatalf("tags %q: %v", r.Tags, err)
		}
	})
}

// checkText asserts stored text is valid, bounded, one line, single-spaced
// and free of control and format characters.
func checkText(t *testing.T, field, s string, limit int, mayBeEmpty bool) {
	t.Helper()
	switch {
	case s == "" && mayBeEmpty:
		return
	case s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > limit:
		t.Fatalf("%s %q is empty, invalid or longer than %d", field, s, limit)
	case strings.TrimSpace(s) != s || strings.Contains(s, "  "):
		t.Fatalf("%s %q is not single-spaced", field, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) && r != ' ' {
			t.Fatalf("%s %q holds %U", field, s, r)
		}
	}
}
