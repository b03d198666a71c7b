package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupScriptCoversEveryTool: scripts/test-servers.sh (make test's
// setup) knows every program the tests need besides Go, node and npm
// included (issue 20: test/mcp needed them and nothing said so), and as a
// non-root user prints the exact apt-get command and fails. The script runs
// with a PATH of stubs only, so nothing is installed.
func TestSetupScriptCoversEveryTool(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "test-servers.sh"))
	if err != nil {
		t.Fatal(err)
	}
	stub := func(dir, name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!"+bash+"\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string) (string, error) {
		cmd := exec.Command(bash, script)
		cmd.Env = []string{"PATH=" + dir}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	bare := t.TempDir()
	stub(bare, "id", "echo 1000")
	out, err := run(bare)
	if err == nil {
		t.Fatalf("the script succeeded with nothing installed:\n%s", out)
	}
	if want := "install them with: sudo apt-get update && sudo apt-get install -y redis-server clickhouse-server nodejs npm"; !strings.Contains(out, want) {
		t.Fatalf("the script printed:\n%s\nwant %q", out, want)
	}

	full := t.TempDir()
	stub(full, "id", "echo 1000")
	for _, tool := range []string{"redis-server", "clickhouse-server", "node", "npm"} {
		stub(full, tool, "exit 0")
	}
	if out, err := run(full); err != nil {
		t.Fatalf("with every tool present the script failed: %v\n%s", err, out)
	}
}
