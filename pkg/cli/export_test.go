package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// bernardFile is Bernard's memories.json (000): one legacy entry without
// a domain.
const bernardFile = `[
  {"id": "1707000000000-a1b2c3", "fact": "npm run build compiles TypeScript to dist/ directory", "embedding": [],
   "source": "compression", "domain": "tool-usage", "createdAt": "2025-02-14T10:00:00.000Z", "accessCount": 3,
   "lastAccessed": "2025-02-14T12:00:00.000Z"},
  {"id": "1707000000001-d4e5f6", "fact": "User prefers concise answers without preamble", "embedding": [],
   "source": "exit", "domain": "user-preferences", "createdAt": "2025-02-15T09:30:00.000Z", "accessCount": 0},
  {"id": "1706000000000-legacy", "fact": "The project deploys to Fly.io from the main branch",
   "source": "compression", "createdAt": "2024-01-23T08:00:00.000Z", "accessCount": 7}
]`

func TestExportImportCommands(t *testing.T) {
	a := clienttest.Start(t)
	url := a.Web().URL()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	bernard := write("memories.json", bernardFile)
	out := mustRun(t, "import", "--url", url, "--tenant", "me", "--format", "bernard", bernard)
	if !strings.Contains(out, "imported 3 memories, skipped 0") {
		t.Fatalf("bernard import printed %q", out)
	}
	if out := mustRun(t, "import", "--url", url, "--tenant", "me", "--format", "bernard", bernard); !strings.Contains(out, "imported 0 memories, skipped 3") {
		t.Fatalf("importing Bernard's file again printed %q", out)
	}

	ndjson := filepath.Join(dir, "me.ndjson")
	mustRun(t, "export", "--url", url, "--tenant", "me", "--out", ndjson)
	lines := strings.Split(strings.TrimSpace(read(ndjson)), "\n")
	if len(lines) != 3 || !strings.Contains(read(ndjson), `"domain":"general"`) || strings.Contains(read(ndjson), `"vector"`) {
		t.Fatalf("export wrote %d lines:\n%s", len(lines), read(ndjson))
	}

	t.Run("markdown snapshot", func(t *testing.T) {
		md := mustRun(t, "export", "--markdown", "--url", url, "--tenant", "me")
		for _, want := range []string{"# Memory snapshot: me", "## People", "## Ongoing lore", "## Recent highlights",
			"npm run build compiles TypeScript", "| general | 1 | 0 |", "| tool-usage | 1 | 0 |", "| user-preferences | 1 | 0 |"} {
			if !strings.Contains(md, want) {
				t.Errorf("snapshot lacks %q:\n%s", want, md)
			}
		}
		if _, err := run(t, "export", "--markdown", "--json", "--url", url); err == nil {
			t.Error("--markdown with --json was accepted")
		}
	})

	t.Run("restore into another tenant", func(t *testing.T) {
		if out := mustRun(t, "import", "--url", url, "--tenant", "copy", "--json", ndjson); !strings.Contains(out, `"imported": 3`) {
			t.Fatalf("import printed %q", out)
		}
		again := filepath.Join(dir, "copy.ndjson")
		mustRun(t, "export", "--url", url, "--tenant", "copy", "--out", again)
		if got, want := read(again), strings.ReplaceAll(read(ndjson), `"tenant":"me"`, `"tenant":"copy"`); got != want {
			t.Fatalf("re-export differs:\n%s\nwant\n%s", got, want)
		}
	})

	// --namespace puts every record of an export under that namespace
	// (issue 20: it was silently ignored for the default format).
	t.Run("import into a namespace", func(t *testing.T) {
		if out := mustRun(t, "import", "--url", url, "--tenant", "nsd", "--namespace", "proj-x", ndjson); !strings.Contains(out, "imported 3 memories") {
			t.Fatalf("import --namespace printed %q", out)
		}
		got := mustRun(t, "export", "--url", url, "--tenant", "nsd")
		if strings.Count(got, `"namespace":"proj-x"`) != 3 {
			t.Fatalf("after import --namespace proj-x, export:\n%s", got)
		}
		if _, err := run(t, "import", "--url", url, "--tenant", "nsd", "--namespace", "bad ns!", ndjson); err == nil || !strings.Contains(err.Error(), "--namespace") {
			t.Fatalf("a bad --namespace: %v", err)
		}
	})

	t.Run("a bad file is refused before anything is sent", func(t *testing.T) {
		bad := write("bad.ndjson", lines[0]+"\n{\"id\": \"x\", \"namespace\": \"default\"}\n"+lines[1]+"\n")
		out, err := run(t, "import", "--url", url, "--tenant", "fresh", bad)
		if err == nil || !strings.Contains(out, bad+":line 2: content is required") {
			t.Fatalf("bad file: %v\n%s", err, out)
		}
		if out := mustRun(t, "export", "--url", url, "--tenant", "fresh"); out != "" {
			t.Fatalf("tenant fresh holds memories after a refused import:\n%s", out)
		}
		if _, err := run(t, "import", "--url", url, "--format", "csv", bad); err == nil {
			t.Fatal("--format csv was accepted")
		}
	})
}
