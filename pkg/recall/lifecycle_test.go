package recall_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/recall"
)

// Superseded and archived memories leave recall unless a filter asks for
// them, by search and by key alike, and never reach the context block.
func TestRecallSupersededAndArchived(t *testing.T) {
	mems := []mem{
		{id: "vim", key: "editor/choice", content: "the user edits code in vim", age: 30 * 24 * time.Hour, supersededBy: "helix"},
		{id: "helix", key: "editor/choice", content: "the user edits code in helix"},
		{id: "emacs", key: "editor/choice", content: "the user edits code in emacs", age: 60 * 24 * time.Hour, archived: true},
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	for _, tc := range []struct {
		name    string
		filters recall.Filters
		want    []string
	}{
		{"default", recall.Filters{}, []string{"helix"}},
		{"superseded", recall.Filters{IncludeSuperseded: true}, []string{"helix", "vim"}},
		{"archived", recall.Filters{IncludeArchived: true}, []string{"emacs", "helix"}},
		{"both", recall.Filters{IncludeArchived: true, IncludeSuperseded: true}, []string{"emacs", "helix", "vim"}},
	} {
		for _, byKey := range []bool{false, true} {
			req := recall.Request{Query: "which editor does the user edit code in", Filters: tc.filters}
			name := tc.name + "/search"
			if byKey {
				req.Key, name = "editor/choice", tc.name+"/key"
			}
			t.Run(name, func(t *testing.T) {
				resp := f.recall(t, req)
				got := ids(resp)
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("recalled %v, want %v", got, tc.want)
				}
				if !strings.Contains(resp.Context, "helix") {
					t.Fatalf("context block lacks the valid memory:\n%s", resp.Context)
				}
				if strings.Contains(resp.Context, "vim") || strings.Contains(resp.Context, "emacs") {
					t.Fatalf("context block holds a superseded or archived memory:\n%s", resp.Context)
				}
			})
		}
	}
}
