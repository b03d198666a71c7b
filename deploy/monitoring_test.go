package deploy

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// withMonitoring copies deploy/k8s into a temporary directory and adds the
// monitoring component to the overlay there, as DEPLOY.md tells an operator
// with the Prometheus Operator to; it returns the copied overlay's path.
func withMonitoring(t *testing.T, overlay string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("k8s", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(dst, path)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(dst, overlay)
	k := filepath.Join(dir, "kustomization.yaml")
	data, err := os.ReadFile(k)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte("components:\n  - ../../components/monitoring\n")...)
	if err := os.WriteFile(k, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBaseAppliesOnABareCluster: kubectl kustomize of the base and of each
// overlay holds no monitoring.coreos.com kind (issue 20: kubectl apply -k
// failed on a cluster without the Prometheus Operator's CRDs), and with the
// component they hold both. Uses the kubectl on PATH, as an operator would;
// TestOverlays checks the same with the kustomize Go API.
func TestBaseAppliesOnABareCluster(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH (TestOverlays renders with the kustomize Go API)")
	}
	build := func(dir string) string {
		out, err := exec.Command(kubectl, "kustomize", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, out)
		}
		return string(out)
	}
	for _, dir := range append([]string{"k8s/base"}, overlays...) {
		if out := build(dir); strings.Contains(out, "monitoring.coreos.com") {
			t.Errorf("kubectl kustomize %s renders monitoring.coreos.com kinds", dir)
		}
	}
	for _, dir := range overlays {
		out := build(withMonitoring(t, dir))
		for _, kind := range []string{"kind: ServiceMonitor", "kind: PrometheusRule"} {
			if !strings.Contains(out, kind) {
				t.Errorf("%s with components/monitoring lacks %s", dir, kind)
			}
		}
		if !strings.Contains(out, "namespace: recollect") {
			t.Errorf("%s with components/monitoring: objects outside the overlay's namespace", dir)
		}
	}
}
