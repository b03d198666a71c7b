package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The runtime profiles are served only with --debug-pprof, and never listed
// as API routes.
func TestPprofOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		s := New(Config{Addr: "127.0.0.1:0", Pprof: on}, prometheus.NewRegistry(), func() error { return nil },
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err := s.Listen(); err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(s.URL() + "/debug/pprof/heap?debug=1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_ = s.Shutdown(context.Background())
		want := http.StatusNotFound
		if on {
			want = http.StatusOK
		}
		if resp.StatusCode != want {
			t.Fatalf("pprof %v: /debug/pprof/heap answered %d, want %d", on, resp.StatusCode, want)
		}
		if on && !strings.Contains(string(body), "heap profile") {
			t.Fatalf("pprof on: not a heap profile: %.100s", body)
		}
		for _, p := range s.Patterns() {
			if strings.Contains(p, "pprof") {
				t.Fatalf("pprof route %q listed among the API's patterns", p)
			}
		}
	}
}
