package deploy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/recollect-dev/recollect/internal/deploytest"
)

// Opt-in: a real cluster. The test applies the single overlay into a fresh
// namespace, so it never touches namespace recollect.
const (
	envKubeconfig = "RECOLLECT_TEST_KUBECONFIG"
	envK8s        = "RECOLLECT_TEST_K8S"       // "1": use $KUBECONFIG
	envK8sImage   = "RECOLLECT_TEST_K8S_IMAGE" // the image the cluster runs
)

// clusterKubeconfig returns the kubeconfig of the opt-in cluster test, or
// skips naming the variables to set.
func clusterKubeconfig(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envKubeconfig); p != "" {
		return p
	}
	if os.Getenv(envK8s) == "1" && os.Getenv("KUBECONFIG") != "" {
		return os.Getenv("KUBECONFIG")
	}
	t.Skipf("no cluster: set %s=<kubeconfig> (or KUBECONFIG and %s=1) to apply the single overlay and recall through it", envKubeconfig, envK8s)
	return ""
}

// kubectl runs kubectl against the test's cluster and returns its stdout.
type kubectl struct {
	t          *testing.T
	kubeconfig string
	namespace  string
}

func (k kubectl) run(ctx context.Context, stdin []byte, args ...string) (string, error) {
	full := append([]string{"--kubeconfig", k.kubeconfig}, args...)
	if k.namespace != "" {
		full = append([]string{"--namespace", k.namespace}, full...)
	}
	cmd := exec.CommandContext(ctx, "kubectl", full...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (k kubectl) must(ctx context.Context, stdin []byte, args ...string) string {
	k.t.Helper()
	out, err := k.run(ctx, stdin, args...)
	if err != nil {
		k.t.Fatal(err)
	}
	return out
}

// TestSingleOverlayOnCluster: from an empty namespace to a recall answer,
// as docs/DEPLOY.md walks it: the API key Secret, the single overlay, the
// StatefulSet ready, a port-forward to the Service, one event, its recall.
func TestSingleOverlayOnCluster(t *testing.T) {
	kubeconfig := clusterKubeconfig(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("%s is set but kubectl is not on PATH: %v", envKubeconfig, err)
	}
	image := os.Getenv(envK8sImage)
	if image == "" {
		image = "recollect:latest"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	suffix, err := deploytest.Suffix(8)
	if err != nil {
		t.Fatal(err)
	}
	ns := "recollect-test-" + suffix
	cluster := kubectl{t: t, kubeconfig: kubeconfig}
	cluster.must(ctx, nil, "create", "namespace", ns)
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer dcancel()
		if _, err := cluster.run(dctx, nil, "delete", "namespace", ns, "--wait=true", "--timeout=5m"); err != nil {
			t.Errorf("delete the test namespace %s: %v", ns, err)
		}
	})
	k := kubectl{t: t, kubeconfig: kubeconfig, namespace: ns}

	key, setting, err := deploytest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	// From stdin, so the key is not on a command line.
	secret := fmt.Sprintf(`{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "recollect-api-keys"}, "stringData": {"api-keys": %q}}`, setting)
	k.must(ctx, []byte(secret), "apply", "-f", "-")

	served := servedAPIVersions(ctx, t, cluster)
	manifest := singleOverlayFor(t, ns, image, served)
	k.must(ctx, manifest, "apply", "-f", "-")
	if _, err := k.run(ctx, nil, "rollout", "status", "statefulset/recollect", "--timeout=10m"); err != nil {
		describe, _ := k.run(context.Background(), nil, "describe", "pod", "recollect-0")
		logs, _ := k.run(context.Background(), nil, "logs", "recollect-0", "--tail=100")
		t.Fatalf("%v\n--- describe pod:\n%s\n--- logs:\n%s", err, describe, logs)
	}

	url := portForward(ctx, t, k, "svc/recollect", 7700)
	resp, err := deploytest.RememberAndRecall(ctx, url, url, key, time.Second)
	if err != nil {
		logs, _ := k.run(context.Background(), nil, "logs", "recollect-0", "--tail=100")
		t.Fatalf("%v\n--- logs:\n%s", err, logs)
	}
	t.Logf("recalled through %s in namespace %s: %q", url, ns, resp.Memories[0].Memory.Content)
}

// servedAPIVersions lists the group versions the cluster serves.
func servedAPIVersions(ctx context.Context, t *testing.T, k kubectl) map[string]bool {
	t.Helper()
	out := k.must(ctx, nil, "api-versions")
	served := map[string]bool{}
	for _, line := range strings.Fields(out) {
		served[line] = true
	}
	return served
}

// singleOverlayFor renders the single overlay for namespace ns, running
// image (pulled only if absent, so an image loaded into the nodes works),
// and leaves out the objects whose API the cluster does not serve (the
// Prometheus Operator's, when it is not installed).
func singleOverlayFor(t *testing.T, ns, image string, served map[string]bool) []byte {
	t.Helper()
	dir, err := filepath.Abs("k8s/overlays/single")
	if err != nil {
		t.Fatal(err)
	}
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize %s: %v", dir, err)
	}
	var items []map[string]any
	for _, res := range rm.Resources() {
		if !served[res.GetApiVersion()] {
			t.Logf("leaving out %s %s: the cluster does not serve %s", res.GetKind(), res.GetName(), res.GetApiVersion())
			continue
		}
		raw, err := res.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatal(err)
		}
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			t.Fatalf("%s %s has no metadata", res.GetKind(), res.GetName())
		}
		meta["namespace"] = ns
		setRecollectImage(obj, image)
		items = append(items, obj)
	}
	if !slices.ContainsFunc(items, func(o map[string]any) bool { return o["kind"] == "StatefulSet" }) {
		t.Fatal("the single overlay rendered no StatefulSet")
	}
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setRecollectImage points every recollect container of a workload at
// image, pulled only when the node lacks it.
func setRecollectImage(obj map[string]any, image string) {
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	containers, _ := pod["containers"].([]any)
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		img, _ := cm["image"].(string)
		if img == "recollect" || strings.HasPrefix(img, "recollect:") {
			cm["image"], cm["imagePullPolicy"] = image, "IfNotPresent"
		}
	}
}

var forwardingRe = regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) -> `)

// portForward runs kubectl port-forward to target on a free local port and
// returns the local base URL; the process is stopped when the test ends.
func portForward(ctx context.Context, t *testing.T, k kubectl, target string, port int) string {
	t.Helper()
	pctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(pctx, "kubectl", "--kubeconfig", k.kubeconfig, "--namespace", k.namespace,
		"port-forward", "--address", "127.0.0.1", target, fmt.Sprintf(":%d", port))
	// A pipe of our own: Wait waits for exec's copy into it, which the
	// reader below drains until the process ends.
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = pw, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("kubectl port-forward %s: %v", target, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = pw.Close()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := forwardingRe.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case local := <-found:
		return "http://127.0.0.1:" + local
	case <-time.After(time.Minute):
		t.Fatalf("kubectl port-forward %s: no forwarding within a minute: %s", target, stderr.String())
	case <-ctx.Done():
		t.Fatalf("kubectl port-forward %s: %v", target, ctx.Err())
	}
	return ""
}

// TestSingleOverlayForCluster checks, offline, what the cluster test
// applies: every object in the fresh namespace, the recollect container on
// the given image pulled only if absent, unserved APIs left out.
func TestSingleOverlayForCluster(t *testing.T) {
	served := map[string]bool{"v1": true, "apps/v1": true, "policy/v1": true, "networking.k8s.io/v1": true}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(singleOverlayFor(t, "recollect-test-x", "registry.example/recollect:v9", served), &list); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, o := range list.Items {
		kinds[o["kind"].(string)] = true
		meta := o["metadata"].(map[string]any)
		if meta["namespace"] != "recollect-test-x" {
			t.Errorf("%s %s in namespace %v", o["kind"], meta["name"], meta["namespace"])
		}
		if !served[o["apiVersion"].(string)] {
			t.Errorf("%s of unserved %s kept", o["kind"], o["apiVersion"])
		}
		if o["kind"] != "StatefulSet" {
			continue
		}
		c := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		if c["image"] != "registry.example/recollect:v9" || c["imagePullPolicy"] != "IfNotPresent" {
			t.Errorf("recollect container image %v pull %v", c["image"], c["imagePullPolicy"])
		}
	}
	for _, want := range []string{"StatefulSet", "Service", "ConfigMap", "ServiceAccount", "PodDisruptionBudget", "NetworkPolicy"} {
		if !kinds[want] {
			t.Errorf("no %s applied (kinds: %v)", want, kinds)
		}
	}
	if kinds["ServiceMonitor"] || kinds["PrometheusRule"] {
		t.Errorf("Prometheus Operator objects kept on a cluster without it: %v", kinds)
	}
}
