package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestProgramModule(t *testing.T) {
	for _, tc := range []struct {
		argv0, want string
		ok          bool
	}{
		{"ingest", "ingest", true},
		{"/usr/local/bin/extractor", "extractor", true},
		{"./embedder", "embedder", true},
		{"/opt/recollect/usr/local/bin/consolidator", "consolidator", true},
		{"topiary", "topiary", true},
		{"bin/query", "query", true},
		{"recollect", "", false},
		{"/usr/local/bin/recollect", "", false},
		{"store", "", false}, // a target, but no binary of its own
		{"all", "", false},
		{"ingest.test", "", false},
		{"Ingest", "", false},
		{"/usr/local/bin/ingest/", "ingest", true}, // filepath.Base drops the trailing slash
		{"", "", false},
	} {
		got, ok := ProgramModule(tc.argv0)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ProgramModule(%q) = %q, %v; want %q, %v", tc.argv0, got, ok, tc.want, tc.ok)
		}
	}
}

// TestModuleBinariesMatchCmd checks the names recollect answers to against
// the entry points in cmd/: every cmd/<module>/main.go calling
// ModuleMain("<module>", ...) is listed, and nothing else is.
func TestModuleBinariesMatchCmd(t *testing.T) {
	mains, err := filepath.Glob("../../cmd/*/main.go")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no cmd/*/main.go: %v", err)
	}
	var found []string
	for _, p := range mains {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Base(filepath.Dir(p))
		if strings.Contains(string(b), "cli.ModuleMain(") {
			if !strings.Contains(string(b), `cli.ModuleMain("`+dir+`"`) {
				t.Errorf("%s calls ModuleMain with another name than %q", p, dir)
			}
			found = append(found, dir)
		}
	}
	slices.Sort(found)
	want := ModuleBinaries()
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Errorf("cmd/ module entry points %v, ModuleBinaries %v", found, want)
	}
}

// TestDockerfileLinksModules checks the Dockerfile links exactly the names
// recollect dispatches on (make image takes them from ModuleBinaries).
func TestDockerfileLinksModules(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	want := "for m in " + strings.Join(ModuleBinaries(), " ") + "; do ln -s recollect /out/bin/$m; done"
	if !strings.Contains(string(b), want) {
		t.Errorf("Dockerfile does not link the module names: want the line %q", want)
	}
}
