package drill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/tmpfs"
	"github.com/recollect-dev/recollect/pkg/query"
)

// TestDiskFull runs `recollect run` on a 24 MiB tmpfs data dir and fills
// it while events are still in the pipeline. Writes are refused with a
// retryable error naming the full disk (never a 202 that is then lost),
// /readyz is not ready and says why. When space returns the process
// recovers by itself, without a restart: /readyz turns ready, the refused
// events resent are accepted, and every event is stored exactly once; a
// reopen then holds the same memories (nothing corrupted).
func TestDiskFull(t *testing.T) {
	dir := tmpfs.Mount(t, "24m")
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
	readyz := func() (int, string) {
		resp, err := http.Get(p.url() + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// waitStored waits until each of the first n events is stored as
	// exactly one memory (source id disk:df-NNN, repetition count 1) and
	// nothing else is stored.
	waitStored := func(n int) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			bySource, other, err := diskMemories(p.url())
			if err == nil && other == "" && len(bySource) == n {
				once := true
				for i := range n {
					once = once && bySource[fmt.Sprintf("disk:df-%03d", i)] == 1
				}
				if once {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("want each of %d events stored once: %d sources %v, other %q, err %v", n, len(bySource), bySource, other, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	const before, inflight, during = 20, 10, 10
	for i := range before {
		if code, body, _ := post(i); code != http.StatusAccepted {
			t.Fatalf("event %d before the disk filled: %d %s", i, code, body)
		}
	}
	waitStored(before)
	// Accepted, then the disk fills while they go through the pipeline.
	for i := before; i < before+inflight; i++ {
		if code, body, _ := post(i); code != http.StatusAccepted {
			t.Fatalf("event %d before the disk filled: %d %s", i, code, body)
		}
	}
	filler := filepath.Join(dir, "filler")
	tmpfs.Fill(t, filler)

	// Writes now: refused with a retryable status, or acknowledged and
	// then stored; never acknowledged and lost.
	var refused []int
	var lastRefusal string
	for i := before + inflight; i < before+inflight+during; i++ {
		code, body, h := post(i)
		switch code {
		case http.StatusAccepted:
		case http.StatusServiceUnavailable, http.StatusInsufficientStorage:
			refused = append(refused, i)
			lastRefusal = body
			if h.Get("Retry-After") == "" {
				t.Errorf("%d without Retry-After: %s", code, body)
			}
		default:
			t.Fatalf("event %d on a full disk answered %d %s, want 202, 503 or 507", i, code, body)
		}
	}
	if len(refused) == 0 {
		t.Fatalf("no write was refused on a full disk")
	}
	if !strings.Contains(strings.ToLower(lastRefusal), "disk full") {
		t.Errorf("the refusal on a full disk does not name it: %s", lastRefusal)
	}
	t.Logf("full disk: %d of %d refused (%s)", len(refused), during, lastRefusal)
	// Operators see it: the process is not ready, and says why.
	if code, body := readyz(); code == http.StatusOK || !strings.Contains(body, "disk full") {
		t.Errorf("readyz on a full disk answered %d %s, want not ready naming the full disk", code, body)
	}

	// Space returns: the process becomes ready by itself.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	deadline := freed.Add(time.Minute)
	for {
		code, body := readyz()
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d a minute after space returned: %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	readyAfter := time.Since(freed)
	// The refused events, resent, are accepted at once.
	for _, i := range refused {
		if code, body, _ := post(i); code != http.StatusAccepted {
			t.Fatalf("event %d resent once ready again: %d %s", i, code, body)
		}
	}
	total := before + inflight + during
	waitStored(total)
	t.Logf("disk full: ready %s after space returned, every event stored once %s after", readyAfter.Round(time.Millisecond),
		time.Since(freed).Round(time.Millisecond))
	if m, err := p.metrics(); err != nil {
		t.Errorf("metrics: %v", err)
	} else if n := m["recollect_bus_disk_restarts_total"]; n != 1 {
		t.Errorf("recollect_bus_disk_restarts_total = %v, want 1", n)
	}
	if p.starts != 1 {
		t.Errorf("the process was started %d times, want once (recovery without a restart)", p.starts)
	}

	// Nothing corrupted: a reopen holds the same memories, each once.
	p.stop(syscall.SIGTERM)
	p.start(t)
	waitStored(total)
}

// diskMemories lists the disk tenant's memories (every state) by source id;
// other describes the first memory that is not one event's alone, stored
// once.
func diskMemories(base string) (map[string]int, string, error) {
	bySource := map[string]int{}
	other := ""
	after := ""
	for {
		u := base + "/v1/memories?tenant=disk&limit=1000&archived=true&superseded=true&quarantined=true"
		if after != "" {
			u += "&after=" + url.QueryEscape(after)
		}
		resp, err := http.Get(u)
		if err != nil {
			return nil, "", err
		}
		var page query.ListResponse
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, "", fmt.Errorf("list memories: %s", resp.Status)
		}
		if err != nil {
			return nil, "", fmt.Errorf("decode memories: %w", err)
		}
		for _, m := range page.Memories {
			if len(m.SourceIDs) != 1 || m.RepetitionCount > 1 {
				if other == "" {
					other = fmt.Sprintf("%s: sources %v, repetition %d", m.ID, m.SourceIDs, m.RepetitionCount)
				}
				continue
			}
			bySource[m.SourceIDs[0]]++
		}
		if page.Next == "" {
			return bySource, other, nil
		}
		after = page.Next
	}
}
