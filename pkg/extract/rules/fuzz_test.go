package rules

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// FuzzCapture checks that no input panics and that every fact keeps the
// invariants downstream stages rely on. `go test` runs the seeds; `go test
// -fuzz=FuzzCapture` explores further.
func FuzzCapture(f *testing.F) {
	for _, tc := range captureCases {
		f.Add(tc.msg)
	}
	for _, s := range []string{
		"I prefer tabs over spaces, and always run make test before committing",
		"actually, actually, no, wait: we must never, ever push to main!!!",
		"I prefer \xff\xfe tabs",
		"My name is \x00\x01 Sam",
		"```go\nalways run\n", // unterminated fence
		"\"I prefer tabs",     // unterminated quote
		"`always use pnpm",
		"I prefer " + strings.Repeat("ü", 400),
		strings.Repeat("always use tabs. ", 200),
		"No.\nNo.\nNo. Use yarn.",
		"I’d rather not… really. Don’t ever use force push; I’m allergic to YAML",
		"1. always rebase\n2) never merge main into feature branches\n• make sure to sign tags",
		"if , always",
		"when, never",
		"I, prefer, tabs",
		"Rule:",
		"my name is",
		"call me",
		"our api uses",
		"   \t\n\n  ",
		"İ PREFER TABS OVER SPACES",
		"i prefer tabs over spaces and i hate yaml and we must never push to main and always run go test ./...",
	} {
		f.Add(s)
	}
	c := New()
	f.Fuzz(func(t *testing.T, msg string) {
		facts := c.Capture("user", msg)
		seen := map[string]bool{}
		for _, fc := range facts {
			switch {
			case fc.Key == "" || memory.NormalizeKey(fc.Key) != fc.Key || len(fc.Key) > memory.MaxKeyChars:
				t.Fatalf("bad key %q from %q", fc.Key, msg)
			case strings.TrimSpace(fc.Content) == "" || len(fc.Content) > MaxContentChars || !utf8.ValidString(fc.Content):
				t.Fatalf("bad content %q from %q", fc.Content, msg)
			case fc.Domain != dTool && fc.Domain != dPref && fc.Domain != dGen:
				t.Fatalf("bad domain %q", fc.Domain)
			case !fc.Type.Valid() || !fc.Kind.Valid():
				t.Fatalf("bad type %q / kind %q", fc.Type, fc.Kind)
			case fc.Evidence == "" || len(fc.Evidence) > MaxContentChars || !strings.Contains(msg, fc.Evidence):
				t.Fatalf("evidence %q is not a part of %q", fc.Evidence, msg)
			case fc.Rule == "":
				t.Fatalf("no rule name for %q", fc.Content)
			}
			if _, err := memory.CheckTags("tags", fc.Tags); err != nil {
				t.Fatalf("tags %v: %v", fc.Tags, err)
			}
			norm := strings.ToLower(strings.Join(strings.Fields(fc.Content), " "))
			if seen[norm] {
				t.Fatalf("duplicate fact %q from %q", fc.Content, msg)
			}
			seen[norm] = true
		}
	})
}
