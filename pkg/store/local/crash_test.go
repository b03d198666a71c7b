package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// childEnv switches the test binary into the writer that TestKill9 kills.
const (
	childEnv      = "RECOLLECT_STORE_CHILD"
	childRoundEnv = "RECOLLECT_STORE_CHILD_ROUND"
	childTenant   = "crash"
	childDim      = 16
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runChildWriter(dir, os.Getenv(childRoundEnv)))
	}
	os.Exit(m.Run())
}

// childConfig compacts often, so that kills also land mid-compaction.
func childConfig() Config { return Config{CompactMinBytes: 16 << 10, CompactRatio: 0.5} }

// runChildWriter upserts from four goroutines until it is killed, printing
// "put <id>" once an upsert returned nil, "try <id>" before deleting,
// "del <id>" once the delete returned nil and "upd <id> <n>" once a
// payload update setting the access count to n (growing per id) returned
// nil.
func runChildWriter(dir, round string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := Open(dir, WithConfig(childConfig()), WithLogger(log))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		return 1
	}
	var out sync.Mutex
	say := func(lines ...string) {
		out.Lock()
		defer out.Unlock()
		for _, l := range lines {
			if _, err := io.WriteString(os.Stdout, l+"\n"); err != nil {
				os.Exit(3) // the parent is gone
			}
		}
	}
	ctx := context.Background()
	for w := range 4 {
		go func() {
			var mine []memory.Memory
			for n := 0; ; n++ {
				size := 1 + n%3
				batch := make([]memory.Memory, size)
				lines := make([]string, size)
				for i := range batch {
					seq := fmt.Sprintf("%s-%d-%d-%d", round, w, n, i)
					m := testMemory(childTenant, 0, seededVector(uint64(len(seq)*7919+n*31+w*17+i), childDim))
					m.ID = memory.DeterministicID("crash", seq)
					m.Content = "crash test memory " + seq
					batch[i] = m
					lines[i] = "put " + m.ID
				}
				if err := s.Upsert(ctx, batch); err != nil {
					fmt.Fprintln(os.Stderr, "child upsert:", err)
					os.Exit(1)
				}
				say(lines...)
				mine = append(mine, batch...)
				if n%2 == 1 {
					// Bookkeeping on the newest memories, some of them
					// updated before.
					upd := slices.Clone(mine[max(0, len(mine)-5):])
					lines = lines[:0]
					for i := range upd {
						upd[i].Vector = nil
						upd[i].AccessCount, upd[i].Importance, upd[i].Epoch = n, float64(n%10)/10, int64(n)
						lines = append(lines, fmt.Sprintf("upd %s %d", upd[i].ID, n))
					}
					if err := s.UpdatePayload(ctx, childTenant, upd); err != nil {
						fmt.Fprintln(os.Stderr, "child update payload:", err)
						os.Exit(1)
					}
					say(lines...)
				}
				if n%5 == 4 {
					victim := mine[0].ID
					mine = mine[1:]
					say("try " + victim) // in flight: either outcome is fine
					if err := s.Delete(ctx, childTenant, victim); err != nil {
						fmt.Fprintln(os.Stderr, "child delete:", err)
						os.Exit(1)
					}
					say("del " + victim)
				}
			}
		}()
	}
	time.Sleep(2 * time.Minute) // only reached when the parent never kills us
	fmt.Fprintln(os.Stderr, "child was not killed")
	return 2
}

func TestKill9(t *testing.T) {
	dir := t.TempDir()
	put := map[string]bool{}    // acknowledged upserts
	dead := map[string]bool{}   // acknowledged deletes
	tried := map[string]bool{}  // deletes begun, maybe not acknowledged
	updated := map[string]int{} // the highest acknowledged access count
	for round := range 4 {
		acks := runAndKill(t, dir, round, 250+round*150)
		for _, a := range acks {
			kind, id, _ := strings.Cut(a, " ")
			switch kind {
			case "upd":
				var n int
				if _, err := fmt.Sscanf(id, "%s %d", &id, &n); err != nil {
					t.Fatalf("child printed %q: %v", a, err)
				}
				updated[id] = max(updated[id], n)
			case "put":
				put[id] = true
			case "del":
				dead[id] = true
			case "try":
				tried[id] = true
			default:
				t.Fatalf("child printed %q", a)
			}
		}
		logs := &logCapture{}
		s, err := Open(dir, WithConfig(childConfig()), WithLogger(slog.New(logs)))
		if err != nil {
			t.Fatalf("round %d: open after kill -9: %v", round, err)
		}
		for id := range put {
			m, err := s.Get(t.Context(), childTenant, id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("get: %v", err)
			}
			switch {
			case dead[id] && err == nil:
				t.Errorf("round %d: acknowledged delete of %s lost", round, id)
			case !tried[id] && err != nil:
				t.Errorf("round %d: acknowledged upsert of %s lost: %v", round, id, err)
			case err == nil && m.AccessCount < updated[id]:
				t.Errorf("round %d: acknowledged payload update of %s to access count %d lost: it has %d", round, id, updated[id], m.AccessCount)
			case err == nil && len(m.Vector) != childDim:
				t.Errorf("round %d: %s has a %d-dim vector after payload updates, want %d", round, id, len(m.Vector), childDim)
			}
		}
		n, err := s.Count(t.Context(), childTenant, store.Filter{})
		if err != nil {
			t.Fatalf("count: %v", err)
		}
		if want := len(put) - len(tried); n < want {
			t.Errorf("round %d: count %d below the %d acknowledged memories", round, n, want)
		}
		t.Logf("round %d: %d acknowledged upserts, %d deletes, %d memories updated, %d stored, recovery said %q",
			round, len(put), len(dead), len(updated), n, logs.messages())
		closeT(t, s)
		if t.Failed() {
			return
		}
	}
	if len(put) == 0 || len(dead) == 0 || len(updated) == 0 {
		t.Fatalf("the child acknowledged %d upserts, %d deletes and %d payload updates; the test checked nothing", len(put), len(dead), len(updated))
	}
	if df, err := listDir(dir); err != nil || len(df.snaps) == 0 {
		t.Fatalf("no snapshot in %s (%v): the kills never met a compacted store", dir, err)
	}
}

// runAndKill starts the writer on dir, reads acknowledgements until it has
// want of them, kills it with SIGKILL and returns every line it read.
func runAndKill(t *testing.T, dir string, round, want int) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir, childRoundEnv+"="+strconv.Itoa(round))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("child stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var acks []string
	deadline := time.After(60 * time.Second)
	for len(acks) < want {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				killed = true
				t.Fatalf("round %d: child exited after %d acknowledgements: %s", round, len(acks), stderr.String())
			}
			acks = append(acks, l)
		case <-deadline:
			t.Fatalf("round %d: child acknowledged only %d writes in time: %s", round, len(acks), stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	// Lines already in the pipe were acknowledged too.
	for l := range lines {
		acks = append(acks, l)
	}
	cmd.Wait()
	killed = true
	return acks
}
