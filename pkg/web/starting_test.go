package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestStartingRoutes: before the modules register their routes an unknown
// route answers 503 with Retry-After (a restarting worker), once ready a
// plain 404, and a registered route is served either way.
func TestStartingRoutes(t *testing.T) {
	var ready atomic.Bool
	s := New(Config{Addr: "127.0.0.1:0"}, prometheus.NewRegistry(), func() error {
		if !ready.Load() {
			return errors.New("modules starting")
		}
		return nil
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	get := func(method, path string) (int, string, string) {
		req, _ := http.NewRequest(method, s.URL()+path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	if code, ra, body := get(http.MethodPost, "/v1/events"); code != http.StatusServiceUnavailable || ra == "" || !strings.Contains(body, "starting") {
		t.Fatalf("unregistered route while starting: %d Retry-After %q %s, want 503 with Retry-After", code, ra, body)
	}
	if code, _, _ := get(http.MethodGet, "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz while starting: %d", code)
	}
	s.Handle("POST /v1/events", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	if code, _, _ := get(http.MethodPost, "/v1/events"); code != http.StatusAccepted {
		t.Fatalf("registered route while starting: %d, want 202", code)
	}
	ready.Store(true)
	if code, _, _ := get(http.MethodPost, "/v1/nothing"); code != http.StatusNotFound {
		t.Fatalf("unknown route once ready: %d, want 404", code)
	}
	if code, _, _ := get(http.MethodGet, "/v1/events"); code != http.StatusMethodNotAllowed {
		t.Fatalf("wrong method once ready: %d, want 405", code)
	}
}
