package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// asTerminal makes isTerminal report true for the writers given (and false
// for every other) until the test ends.
func asTerminal(t *testing.T, terminals ...io.Writer) {
	old := isTerminal
	isTerminal = func(w io.Writer) bool {
		for _, tw := range terminals {
			if w == tw {
				return true
			}
		}
		return false
	}
	t.Cleanup(func() { isTerminal = old })
}

// runSplit runs a command with separate stdout and stderr.
func runSplit(args ...string) (stdout, stderr string, err error) {
	root := NewRoot()
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return out.String(), errw.String(), err
}

func TestProgressQuietInPipesShownOnTerminal(t *testing.T) {
	a := clienttest.Start(t)
	url := a.Web().URL()
	dir := t.TempDir()
	bernard := filepath.Join(dir, "memories.json")
	if err := os.WriteFile(bernard, []byte(bernardFile), 0o600); err != nil {
		t.Fatal(err)
	}
	ndjson := filepath.Join(dir, "me.ndjson")

	// Pipes (buffers are no terminals): the result on stdout, nothing on stderr.
	out, errOut, err := runSplit("import", "--url", url, "--tenant", "me", "--format", "bernard", bernard)
	if err != nil || !strings.Contains(out, "imported 3 memories") || errOut != "" {
		t.Fatalf("import in a pipe: %v\nstdout %q\nstderr %q", err, out, errOut)
	}
	if _, errOut, err := runSplit("export", "--url", url, "--tenant", "me", "--out", ndjson); err != nil || errOut != "" {
		t.Fatalf("export in a pipe: %v\nstderr %q", err, errOut)
	}

	// stderr a terminal: the bars are drawn there, stdout and the file unchanged.
	root := NewRoot()
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	asTerminal(t, stderr)
	root.SetOut(&stdout)
	root.SetErr(stderr)
	root.SetArgs([]string{"import", "--url", url, "--tenant", "copy", ndjson})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "imported 3 memories") || strings.Contains(stdout.String(), "importing") {
		t.Fatalf("import stdout %q", stdout.String())
	}
	// The bar counts memories stored, not bytes sent (issue 20).
	if e := stderr.String(); !strings.Contains(e, "importing") || !strings.Contains(e, "100%") || !strings.Contains(e, "(3/3, ") ||
		!strings.Contains(e, "memories") || strings.Contains(e, " B/") {
		t.Fatalf("import on a terminal drew no finished bar of memories on stderr: %q", e)
	}

	copyFile := filepath.Join(dir, "copy.ndjson")
	stderr2 := &syncBuffer{}
	asTerminal(t, stderr2)
	root = NewRoot()
	root.SetOut(io.Discard)
	root.SetErr(stderr2)
	root.SetArgs([]string{"export", "--url", url, "--tenant", "copy", "--out", copyFile})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The spinner ends as a complete bar with the total, its line ended.
	if e := stderr2.String(); !strings.Contains(e, "exporting") || !strings.Contains(e, "(3/3, ") || !strings.HasSuffix(e, "\n") {
		t.Fatalf("export on a terminal: stderr %q", e)
	}
	data, err := os.ReadFile(copyFile)
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Fatalf("export file with a bar on stderr: %v\n%s", err, data)
	}
}

// TestRunBannerAndLogFormat runs recollect run as a person at a terminal
// would and as a service under a supervisor would.
func TestRunBannerAndLogFormat(t *testing.T) {
	for _, tt := range []struct {
		name     string
		terminal bool
		format   string
		wantText bool
	}{
		{name: "terminal, auto", terminal: true, format: "auto", wantText: true},
		{name: "pipe, auto", terminal: false, format: "auto", wantText: false},
		{name: "terminal, json", terminal: true, format: "json", wantText: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stderr := &syncBuffer{}
			if tt.terminal {
				asTerminal(t, stderr)
			} else {
				asTerminal(t)
			}
			dataDir := t.TempDir()
			cmd := newRunCmd("")
			cmd.SetOut(io.Discard)
			cmd.SetErr(stderr)
			cmd.SetArgs([]string{"--data-dir", dataDir, "--http-addr", "127.0.0.1:0", "--log-format", tt.format,
				"--consolidate-interval", "0s"})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(ctx) }()
			clienttest.Eventually(t, time.Minute, "recollect ready", func() error {
				if !strings.Contains(stderr.String(), "recollect ready") {
					return errors.New("not ready yet")
				}
				return nil
			})
			if tt.terminal {
				tryBanner(t, stderr.String())
			}
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("run: %v", err)
			}
			log := stderr.String()
			banner := strings.Contains(log, "Recollect "+Version+" is ready at http://127.0.0.1:")
			if banner != tt.terminal {
				t.Errorf("banner shown = %v, want %v:\n%s", banner, tt.terminal, log)
			}
			if tt.terminal {
				for _, want := range []string{"/v1/recall -d '{\"tenant\": \"acme\"", "data:  " + dataDir} {
					if !strings.Contains(log, want) {
						t.Errorf("banner lacks %q:\n%s", want, log)
					}
				}
			}
			firstLog := strings.SplitN(log, "\n", 2)[0]
			isJSON := json.Valid([]byte(firstLog))
			if isJSON == tt.wantText || (tt.wantText && !strings.Contains(log, "level=INFO msg=\"recollect ready\"")) {
				t.Errorf("first log line %q: want text=%v", firstLog, tt.wantText)
			}
		})
	}
	if _, _, err := runSplit("run", "--log-format", "yaml", "--data-dir", t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), `log-format must be auto, text or json (got "yaml")`) {
		t.Fatalf("bad --log-format: %v", fmt.Sprint(err))
	}
}

// tryBanner sends the banner's suggested requests in order, as a person
// pasting them would: the recall must answer a memory on the fresh store
// (issue 20: it answered []).
func tryBanner(t *testing.T, banner string) {
	t.Helper()
	reqs := regexp.MustCompile(`curl -s (\S+) -d '([^']*)'`).FindAllStringSubmatch(banner, -1)
	if len(reqs) != 2 || !strings.HasSuffix(reqs[0][1], "/v1/memories") || !strings.HasSuffix(reqs[1][1], "/v1/recall") {
		t.Fatalf("banner suggests %v, want a learn then a recall:\n%s", reqs, banner)
	}
	var recalled struct {
		Memories []struct{ Memory struct{ Content string } }
	}
	for i, r := range reqs {
		resp, err := http.Post(r[1], "application/json", strings.NewReader(r[2]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("banner request %s answered %d: %s", r[1], resp.StatusCode, body)
		}
		if i == 1 {
			if err := json.Unmarshal(body, &recalled); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(recalled.Memories) == 0 || !strings.Contains(recalled.Memories[0].Memory.Content, "tabs") {
		t.Fatalf("the banner's recall on a fresh store answered %+v", recalled)
	}
}
