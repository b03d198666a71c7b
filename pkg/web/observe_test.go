package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestEveryRouteTimedAndEveryErrorJSON: the latency histogram has every
// request by route pattern and status code (a middleware's 401 and an
// unmatched path included), and the mux's own 404 and 405 answer JSON
// (issue 20: /v1/context, /v1/resume, /mcp and /v1/events were untimed,
// no code label, and GET /v1/topics or / answered text/plain).
func TestEveryRouteTimedAndEveryErrorJSON(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := New(Config{Addr: "127.0.0.1:0"}, reg, func() error { return nil }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { WriteJSON(w, http.StatusOK, map[string]string{}) })
	for _, p := range []string{"POST /v1/context", "GET /v1/resume", "/mcp", "POST /v1/events", "POST /v1/topics"} {
		s.Handle(p, ok)
	}
	s.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Refuse") != "" {
				WriteError(w, http.StatusUnauthorized, "unauthorized", io.EOF)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	do := func(method, path string, refuse bool) (*http.Response, Error) {
		req, _ := http.NewRequest(method, s.URL()+path, strings.NewReader("{}"))
		if refuse {
			req.Header.Set("X-Refuse", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e Error
		if resp.StatusCode >= 400 {
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s %s: %d with Content-Type %q, want JSON", method, path, resp.StatusCode, ct)
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Code == "" || e.Error == "" {
				t.Errorf("%s %s: %d body not a JSON error (%v): %+v", method, path, resp.StatusCode, err, e)
			}
		}
		return resp, e
	}
	do(http.MethodPost, "/v1/context", false)
	do(http.MethodGet, "/v1/resume", false)
	do(http.MethodPost, "/mcp", false)
	do(http.MethodPost, "/v1/events", false)
	do(http.MethodPost, "/v1/events", true)
	resp, e := do(http.MethodGet, "/v1/topics", false)
	if resp.StatusCode != http.StatusMethodNotAllowed || e.Code != "method_not_allowed" || resp.Header.Get("Allow") == "" || !strings.Contains(e.Error, "POST") {
		t.Errorf("GET /v1/topics: %d %+v Allow %q, want a JSON 405 naming POST", resp.StatusCode, e, resp.Header.Get("Allow"))
	}
	for _, p := range []string{"/", "/no/such/path"} {
		if resp, e := do(http.MethodGet, p, false); resp.StatusCode != http.StatusNotFound || e.Code != "no_route" {
			t.Errorf("GET %s: %d %+v, want a JSON 404", p, resp.StatusCode, e)
		}
	}

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, mf := range mfs {
		if mf.GetName() != "recollect_query_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["route"]+" "+labels["code"]] += m.GetHistogram().GetSampleCount()
		}
	}
	for _, want := range []string{"POST /v1/context 200", "GET /v1/resume 200", "/mcp 200", "POST /v1/events 200", "POST /v1/events 401",
		"unmatched 405", "unmatched 404"} {
		if got[want] == 0 {
			t.Errorf("no sample of %q; have %v", want, got)
		}
	}
	if got["unmatched 404"] != 2 {
		t.Errorf("unmatched 404 counted %d, want 2", got["unmatched 404"])
	}
}
