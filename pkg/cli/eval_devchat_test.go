package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/devchatgen"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/eval"
)

// TestEvalDevChatCommand: the command runs a generated set against a
// running Recollect and prints the JSON report.
func TestEvalDevChatCommand(t *testing.T) {
	a := clienttest.Start(t)
	o := devchatgen.DefaultOptions()
	o.Conversations, o.MinSessions, o.MaxSessions, o.MinTurns, o.MaxTurns = 1, 3, 3, 4, 4
	set, err := devchatgen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	data, err := devchatgen.Encode(set)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "devchat.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	root := NewRoot()
	var out, stderr bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&stderr)
	root.SetArgs([]string{"eval", "devchat", "--url", a.Web().URL(), "--data", path, "--json", "--as-of", "off", "--settle", "30s"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	var rep eval.DevChatReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("decode report: %v\n%s", err, out.String())
	}
	if rep.Conversations != 1 || rep.Questions != len(set.Conversations[0].Questions) || rep.AsOf != "not sent (--as-of off)" || rep.Updates.Questions == 0 {
		t.Fatalf("report = %+v", rep)
	}

	root = NewRoot()
	root.SetOut(&out)
	root.SetErr(&stderr)
	root.SetArgs([]string{"eval", "devchat", "--url", a.Web().URL(), "--data", path, "--as-of", "sometimes"})
	if err := root.ExecuteContext(ctx); err == nil {
		t.Fatal("--as-of sometimes accepted")
	}
}
