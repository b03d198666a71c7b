package query

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TestStoreDownAnswers503 closes the store under a serving query module:
// every read answers 503 with Retry-After, never 500.
func TestStoreDownAnswers503(t *testing.T) {
	h := newHarness(t)
	h.put(t, memory.Memory{ID: "m1", Content: "The user prefers tabs over spaces"})
	if err := h.store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/recall", `{"tenant":"acme","query":"tabs"}`},
		{"GET", "/v1/memories?tenant=acme", ""},
		{"GET", "/v1/memories/m1?tenant=acme", ""},
		{"GET", "/v1/memories/m1/history?tenant=acme", ""},
		{"GET", "/v1/stats?tenant=acme", ""},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			status, retry, body := rawDo(t, c.method, h.url+c.path, c.body)
			if status != http.StatusServiceUnavailable || retry == "" {
				t.Fatalf("status %d, Retry-After %q, body %s; want 503 with Retry-After", status, retry, body)
			}
			var e struct{ Code string }
			if err := json.Unmarshal(body, &e); err != nil || e.Code != "unavailable" {
				t.Fatalf("body %s, want code unavailable", body)
			}
		})
	}
}

func rawDo(t *testing.T, method, url, body string) (int, string, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), buf.Bytes()
}
