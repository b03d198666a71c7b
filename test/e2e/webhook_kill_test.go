package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
)

// receiver is a webhook endpoint that verifies every delivery's signature
// and records the memories it was told were stored, each delivery a little
// slow so that some are in flight when the sender dies.
type receiver struct {
	t      *testing.T
	mu     sync.Mutex
	secret string
	stored map[string]int // memory id → deliveries
	bad    int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	secret := rc.secret
	rc.mu.Unlock()
	if secret == "" || client.VerifyWebhook(secret, r.Header, body, 5*time.Minute, time.Now()) != nil {
		rc.mu.Lock()
		rc.bad++
		rc.mu.Unlock()
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var p struct {
		Type string `json:"type"`
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	time.Sleep(20 * time.Millisecond)
	if p.Type == "memory.stored" {
		rc.mu.Lock()
		rc.stored[p.Data.ID]++
		rc.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) count() (int, int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.stored), rc.bad
}

// TestWebhooksSurviveKill9: a signed webhook receiver gets a memory.stored
// for every memory a tenant stored although the process delivering them
// was killed with SIGKILL mid-stream and started again on its data dir
// (at least once: a delivery cut short may come twice, never zero times).
func TestWebhooksSurviveKill9(t *testing.T) {
	rc := &receiver{t: t, stored: map[string]int{}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	start := time.Now()
	bins := buildCommands(t, "./cmd/recollect")
	t.Logf("built in %s", time.Since(start))
	p := newProc(t, bins, "recollect", "run", "--data-dir", t.TempDir(), "--webhook-allow-private", "--webhook-retry-base", "100ms",
		// Short handler bounds: what was in flight at the kill comes back soon.
		"--extractor-timeout", "5s", "--embedder-timeout", "5s", "--webhook-timeout", "2s")
	p.start(t)
	c := client.New(p.url())
	ctx := context.Background()
	hook, err := c.CreateWebhook(ctx, client.CreateWebhookRequest{Tenant: "hooks", URL: srv.URL, Types: []string{"memory.stored"}})
	if err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	rc.mu.Lock()
	rc.secret = hook.Secret
	rc.mu.Unlock()

	const n = 60
	var evs []any
	for i := range n {
		evs = append(evs, map[string]any{"id": fmt.Sprintf("h-%d", i), "type": "memory", "tenant": "hooks",
			"memory": map[string]any{"type": "fact", "content": fmt.Sprintf("Webhook fact number %d: rack %d holds server %d", i, i, i*7)}})
	}
	if code := postJSON(t, p.url()+"/v1/events", map[string]any{"events": evs}, nil); code != http.StatusAccepted {
		t.Fatalf("ingest answered %d", code)
	}
	eventually(t, 60*time.Second, "some deliveries before the kill", func() error {
		if got, _ := rc.count(); got < 5 {
			return fmt.Errorf("%d delivered", got)
		}
		return nil
	})
	p.stop(syscall.SIGKILL)
	before, _ := rc.count()
	t.Logf("killed after %s with %d delivered", time.Since(start), before)
	p.start(t)
	eventually(t, 120*time.Second, "every stored memory delivered after the restart", func() error {
		if got, _ := rc.count(); got != n {
			return fmt.Errorf("%d of %d memories delivered (%d before the kill)", got, n, before)
		}
		return nil
	})
	if _, bad := rc.count(); bad != 0 {
		t.Fatalf("%d deliveries failed their signature check", bad)
	}
}
