package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runMainEnv makes the test binary run main() instead of the tests, so
// that a symlink to it behaves as a symlink to recollect does.
const runMainEnv = "RECOLLECT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestDispatchByProgramName runs this package's main() through symlinks
// named like the image's /usr/local/bin entries and checks each answers as
// the right program.
func TestDispatchByProgramName(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, want := range map[string]string{
		"recollect":    "recollect [command]",
		"ingest":       "recollect-ingest [flags]",
		"extractor":    "recollect-extractor [flags]",
		"embedder":     "recollect-embedder [flags]",
		"consolidator": "recollect-consolidator [flags]",
		"topiary":      "recollect-topiary [flags]",
		"query":        "recollect-query [flags]",
	} {
		link := filepath.Join(dir, name)
		if err := os.Symlink(self, link); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(link, "--help")
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s --help: %v\n%s", name, err, out)
			continue
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s --help does not say %q:\n%s", name, want, out)
		}
		if name != "recollect" && strings.Contains(string(out), "Available Commands") {
			t.Errorf("%s --help lists recollect's subcommands:\n%s", name, out)
		}
	}
}
