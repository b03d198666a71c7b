package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyAClient keeps pkg/client buildable without the server: none of
// its dependencies is NATS, Prometheus, OpenTelemetry or a Recollect
// package other than the wire types and the formats they use.
func TestOnlyAClient(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the dependencies: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const own = "github.com/recollect-dev/recollect/"
	allowed := map[string]bool{
		own + "pkg/client":     true,
		own + "pkg/api":        true,
		own + "pkg/memory":     true,
		own + "pkg/snapshot":   true, // the NDJSON format of export and import
		own + "pkg/strictjson": true, // snapshot's decoder
	}
	forbidden := []string{"github.com/nats-io/", "github.com/prometheus/", "go.opentelemetry.io/"}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %v", deps)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, own) && !allowed[dep] {
			t.Errorf("pkg/client depends on the server package %s", dep)
		}
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("pkg/client depends on %s", dep)
			}
		}
	}
}
