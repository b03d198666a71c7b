package recall_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/recall"
)

func TestFilePathFilter(t *testing.T) {
	mems := []mem{
		{id: "go", content: "deploy notes for go files", scope: []string{"*.go"}},
		{id: "pkg", content: "deploy notes for the pkg tree", scope: []string{"pkg/**"}},
		{id: "web", content: "deploy notes for the web app", scope: []string{"web/**/*.ts"}},
		{id: "any", content: "deploy notes for everyone"},
		{id: "bad", content: "deploy notes with a broken glob", scope: []string{"[web"}},
	}
	tests := []struct {
		path string
		want []string
	}{
		{"", []string{"any", "bad", "go", "pkg", "web"}},
		{"pkg/a/b.go", []string{"any", "go", "pkg"}},
		{"./main.go", []string{"any", "go"}},
		{`web\src\app.ts`, []string{"any", "web"}},
		{"docs/README.md", []string{"any"}},
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := f.recall(t, recall.Request{Query: "deploy notes", Filters: recall.Filters{FilePath: tt.path}})
			got := ids(resp)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("recalled %v for %q, want %v", got, tt.path, tt.want)
			}
		})
	}
}

// TestFilePathFilterOversamples: memories scoped elsewhere that match the
// query better must not crowd the file's own memories out of the
// candidates.
func TestFilePathFilterOversamples(t *testing.T) {
	var mems []mem
	for i := range 30 {
		mems = append(mems, mem{id: fmt.Sprintf("web%02d", i), content: "deploy script notes for the web frontend", scope: []string{"web/**"}})
	}
	mems = append(mems, mem{id: "go", content: "deploy script", scope: []string{"**/*.go"}})
	cfg := recall.Config{PerDomain: 9, MaxResults: 9, MinRelevance: 0.05, Candidates: 10}
	f := newFixture(t, mems, cfg, nil)
	unscoped := f.recall(t, recall.Request{Query: "deploy script notes for the web frontend"})
	if slices.Contains(ids(unscoped), "go") {
		t.Fatalf("the test needs the go memory outranked without a file path: %v", ids(unscoped))
	}
	resp := f.recall(t, recall.Request{Query: "deploy script notes for the web frontend", Filters: recall.Filters{FilePath: "cmd/main.go"}})
	if !slices.Equal(ids(resp), []string{"go"}) {
		t.Fatalf("recalled %v for cmd/main.go, want [go]", ids(resp))
	}
}
