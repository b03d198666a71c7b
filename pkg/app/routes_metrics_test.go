package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// TestMetricsCoverEveryModuleRoute: on the single process, the routes of
// the ingest and context modules are timed next to the query module's,
// with a status code (issue 20).
func TestMetricsCoverEveryModuleRoute(t *testing.T) {
	a := clienttest.Start(t)
	base := a.Web().URL()
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/context", `{"tenant":"acme","session_id":"s1","query":"indent"}`},
		{"GET", "/v1/resume?tenant=acme&session_id=s1", ""},
		{"POST", "/v1/events", `{"id":"e1","type":"turn","tenant":"acme","session_id":"s1","role":"user","content":"tabs please"}`},
		{"POST", "/v1/recall", `{"tenant":"acme","query":"indent"}`},
		{"GET", "/v1/topics", ""},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`recollect_query_duration_seconds_count{code="200",route="POST /v1/context"}`,
		`recollect_query_duration_seconds_count{code="200",route="GET /v1/resume"}`,
		`recollect_query_duration_seconds_count{code="202",route="POST /v1/events"}`,
		`recollect_query_duration_seconds_count{code="200",route="POST /v1/recall"}`,
		`recollect_query_duration_seconds_count{code="405",route="unmatched"}`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		for line := range strings.Lines(string(page)) {
			if strings.HasPrefix(line, "recollect_query_duration_seconds_count") {
				t.Log(strings.TrimSpace(line))
			}
		}
	}
}
