package promptctx

import "testing"

func TestFitScope(t *testing.T) {
	for _, c := range []struct {
		name  string
		globs []string
		file  string
		want  scopeFit
	}{
		{"doublestar any depth", []string{"**/*.go"}, "pkg/a/b.go", scopeMatch},
		{"doublestar zero dirs", []string{"**/*.go"}, "main.go", scopeMatch},
		{"doublestar other ext", []string{"**/*.go"}, "pkg/a/b.py", scopeOut},
		{"star stays in one dir", []string{"pkg/*.go"}, "pkg/a/b.go", scopeOut},
		{"star in one dir", []string{"pkg/*.go"}, "pkg/b.go", scopeMatch},
		{"slashless glob matches base name", []string{"*.go"}, "pkg/a/b.go", scopeMatch},
		{"prefix tree", []string{"pkg/**"}, "pkg/a/b.go", scopeMatch},
		{"middle doublestar", []string{"pkg/**/b.go"}, "pkg/x/y/b.go", scopeMatch},
		{"alternatives", []string{"**/*.{ts,tsx}"}, "web/app.tsx", scopeMatch},
		{"any of several", []string{"docs/*.md", "**/*_test.go"}, "pkg/a/b_test.go", scopeMatch},
		{"none of several", []string{"docs/*.md", "**/*_test.go"}, "pkg/a/b.go", scopeOut},
		{"malformed glob matches nothing", []string{"[a-"}, "pkg/a/b.go", scopeOut},
		{"no globs", nil, "pkg/a/b.go", scopeNeutral},
		{"no file", []string{"**/*.go"}, "", scopeNeutral},
		{"dot slash pattern", []string{"./pkg/**/*.go"}, "pkg/a/b.go", scopeMatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fitScope(c.globs, cleanPath(c.file)); got != c.want {
				t.Fatalf("fitScope(%q, %q) = %d, want %d", c.globs, c.file, got, c.want)
			}
		})
	}
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{
		"./pkg/a/b.go":   "pkg/a/b.go",
		`pkg\a\b.go`:     "pkg/a/b.go",
		"pkg//a/../b.go": "pkg/b.go",
		"/abs/x.go":      "/abs/x.go",
		"  ":             "",
	} {
		if got := cleanPath(in); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}
