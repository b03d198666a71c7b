package scope

import "testing"

func TestFitOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		globs []string
		file  string
		want  Fit
	}{
		{"doublestar any depth", []string{"**/*.go"}, "pkg/a/b.go", Match},
		{"doublestar zero dirs", []string{"**/*.go"}, "main.go", Match},
		{"doublestar other ext", []string{"**/*.go"}, "pkg/a/b.py", Out},
		{"star stays in one dir", []string{"pkg/*.go"}, "pkg/a/b.go", Out},
		{"star in one dir", []string{"pkg/*.go"}, "pkg/b.go", Match},
		{"slashless glob matches base name", []string{"*.go"}, "pkg/a/b.go", Match},
		{"prefix tree", []string{"pkg/**"}, "pkg/a/b.go", Match},
		{"middle doublestar", []string{"pkg/**/b.go"}, "pkg/x/y/b.go", Match},
		{"alternatives", []string{"**/*.{ts,tsx}"}, "web/app.tsx", Match},
		{"any of several", []string{"docs/*.md", "**/*_test.go"}, "pkg/a/b_test.go", Match},
		{"none of several", []string{"docs/*.md", "**/*_test.go"}, "pkg/a/b.go", Out},
		{"malformed glob matches nothing", []string{"[a-"}, "pkg/a/b.go", Out},
		{"no globs", nil, "pkg/a/b.go", Neutral},
		{"no file", []string{"**/*.go"}, "", Neutral},
		{"only blank globs", []string{" ", ""}, "pkg/a/b.go", Neutral},
		{"dot slash pattern", []string{"./pkg/**/*.go"}, "pkg/a/b.go", Match},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FitOf(c.globs, Clean(c.file)); got != c.want {
				t.Fatalf("FitOf(%q, %q) = %d, want %d", c.globs, c.file, got, c.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"./pkg/a/b.go":   "pkg/a/b.go",
		`pkg\a\b.go`:     "pkg/a/b.go",
		"pkg//a/../b.go": "pkg/b.go",
		"/abs/x.go":      "/abs/x.go",
		"  ":             "",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
