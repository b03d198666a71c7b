package drill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/query"
)

// TestDiskFull runs `recollect run` on a 24 MiB tmpfs data dir, fills it,
// and checks writes are refused with a retryable error (never a 202 that
// is then lost), that nothing stored is corrupted (a reopen counts the
// same), and that writes succeed again once space returns.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts recollect run on a tmpfs; skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("disk-full case skipped: mounting a size-limited tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("disk-full case skipped: this machine does not permit mount -t tmpfs (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v %s", dir, err, out)
		}
	})
	bins := buildBinaries(t)
	p := newProc(t, bins, "recollect", "run", "run", "--data-dir", dir, "--insecure",
		"--nats-max-bytes", "4194304", "--nats-publish-timeout", "3s")
	p.start(t)

	post := func(i int) (int, string, http.Header) {
		ev := map[string]any{"events": []any{map[string]any{"id": fmt.Sprintf("df-%03d", i), "type": "memory", "tenant": "disk",
			"subject": fmt.Sprintf("u-%03d", i), "memory": map[string]any{"content": "The archive keeps the " + phrase(i) + " downstairs", "type": "fact"}}}}
		b, _ := json.Marshal(ev)
		resp, err := http.Post(p.url()+"/v1/events", "application/json", bytes.NewReader(b))
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header
	}
	count := func() (int, error) {
		resp, err := http.Get(p.url() + "/v1/stats?tenant=disk")
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var s query.Stats
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			return 0, err
		}
		return s.Memories, nil
	}
	waitCount := func(want int) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			n, err := count()
			if err == nil && n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d memories (err %v), want %d", n, err, want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	const before = 20
	for i := range before {
		if code, body, _ := post(i); code != http.StatusAccepted {
			t.Fatalf("event %d before the disk filled: %d %s", i, code, body)
		}
	}
	waitCount(before)

	// Fill the disk to the last byte.
	filler := filepath.Join(dir, "filler")
	fillDisk(t, filler)

	// Writes now: refused with a retryable status, or acknowledged and
	// then stored; never acknowledged and lost.
	acked := map[int]bool{}
	refused := 0
	var lastRefusal string
	for i := before; i < before+10; i++ {
		code, body, h := post(i)
		switch code {
		case http.StatusAccepted:
			acked[i] = true
		case http.StatusServiceUnavailable, http.StatusInsufficientStorage:
			refused++
			lastRefusal = body
			if h.Get("Retry-After") == "" {
				t.Errorf("%d without Retry-After: %s", code, body)
			}
		default:
			t.Fatalf("event %d on a full disk answered %d %s, want 202, 503 or 507", i, code, body)
		}
	}
	if refused == 0 {
		t.Fatalf("no write was refused on a full disk")
	}
	if !strings.Contains(strings.ToLower(lastRefusal), "disk full") {
		t.Errorf("the refusal on a full disk does not name it: %s", lastRefusal)
	}
	t.Logf("full disk: %d of 10 refused (%s)", refused, lastRefusal)
	// Operators see it: the process is not ready, and says why.
	if resp, err := http.Get(p.url() + "/readyz"); err != nil {
		t.Errorf("readyz on a full disk: %v", err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || !strings.Contains(string(body), "disk full") {
			t.Errorf("readyz on a full disk answered %d %s, want not ready naming the full disk", resp.StatusCode, body)
		}
	}

	// Space returns: the same ids are resent until accepted.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	restarted := false
	deadline := time.Now().Add(20 * time.Second)
	for i := before; i < before+10; {
		code, body, _ := post(i)
		if code == http.StatusAccepted {
			i++
			continue
		}
		if time.Now().After(deadline) {
			if restarted {
				t.Fatalf("event %d still refused after space returned and a restart: %d %s", i, code, body)
			}
			t.Logf("writes still refused %s after space returned (%s); restarting the server", 20*time.Second, body)
			// Readiness says so, and what to do.
			if resp, err := http.Get(p.url() + "/readyz"); err == nil {
				rb, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK || !strings.Contains(string(rb), "restart the process") {
					t.Errorf("readyz while writes fail after a full disk answered %d %s, want not ready asking for a restart", resp.StatusCode, rb)
				}
			}
			p.stop(syscall.SIGTERM)
			p.start(t)
			restarted = true
			deadline = time.Now().Add(20 * time.Second)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitCount(before + 10)

	// Nothing corrupted: a reopen holds the same memories, each once.
	p.stop(syscall.SIGTERM)
	p.start(t)
	waitCount(before + 10)
	t.Logf("disk full: recovery needed a restart: %v", restarted)
}

// fillDisk writes path until the file system is full.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", path, err)
			}
			break
		}
	}
	for n := 4096; n > 0; n /= 2 { // the last partial blocks
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
}
