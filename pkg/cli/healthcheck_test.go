package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func runHealthcheck(t *testing.T, args ...string) error {
	t.Helper()
	root := NewRoot()
	root.SetArgs(append([]string{"healthcheck"}, args...))
	return root.Execute()
}

func TestHealthcheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			_, _ = w.Write([]byte("ok\n"))
			return
		}
		http.Error(w, "modules starting", http.StatusServiceUnavailable)
	}))
	defer srv.Close()

	if err := runHealthcheck(t, "--url", srv.URL+"/readyz"); err != nil {
		t.Fatalf("ready server: %v", err)
	}
	err := runHealthcheck(t, "--url", srv.URL+"/other")
	if err == nil || !strings.Contains(err.Error(), "status 503") || !strings.Contains(err.Error(), "modules starting") {
		t.Fatalf("503 answer: got %v, want an error with the status and the body", err)
	}
	if err := runHealthcheck(t, "--url", srv.URL+"/readyz", "--timeout", "0s"); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("zero timeout: got %v, want an error naming timeout", err)
	}
	url := srv.URL
	srv.Close()
	if err := runHealthcheck(t, "--url", url+"/readyz"); err == nil {
		t.Fatal("closed server: want an error")
	}
}

func TestCheckRun(t *testing.T) {
	env := map[string]string{"RECOLLECT_NATS_URL": "nats://nats:4222", "RECOLLECT_HTTP_ADDR": "0.0.0.0:7700"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := CheckRun("", []string{"--target", "ingest"}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Bus.URL != "nats://nats:4222" || cfg.Web.Addr != "0.0.0.0:7700" || len(cfg.Targets) != 1 || cfg.Targets[0] != "ingest" {
		t.Fatalf("config not taken from args and env: %+v %+v %v", cfg.Bus, cfg.Web, cfg.Targets)
	}
	if _, err := CheckRun("", []string{"--no-such-flag"}, lookup); err == nil {
		t.Fatal("unknown flag accepted")
	}
	if _, err := CheckRun("", []string{"--target", "nope"}, lookup); err == nil || !strings.Contains(err.Error(), "target") {
		t.Fatalf("unknown target: got %v", err)
	}
	env["RECOLLECT_RATE_BURST"] = "many"
	if _, err := CheckRun("", nil, lookup); err == nil || !strings.Contains(err.Error(), "RECOLLECT_RATE_BURST") {
		t.Fatalf("bad env value: got %v", err)
	}
	if _, err := CheckRun("ingest", []string{"--target", "query"}, func(string) (string, bool) { return "", false }); err == nil {
		t.Fatal("a module binary accepted --target")
	}
}
