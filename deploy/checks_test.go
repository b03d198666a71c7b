package deploy

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/config"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/extract"
)

const binDir = "/usr/local/bin/"

// stopBudget is how long App.Run gives Stop (modules and HTTP drain).
const stopBudget = time.Minute

// secretSamples are well-formed values standing in for secret keys, so that
// the configuration's own validation of them runs.
var secretSamples = map[string]string{
	"RECOLLECT_API_KEYS":       "sample-key-0123456789=acme:admin",
	"RECOLLECT_REDIS_URL":      "redis://:secret@redis:6379/0",
	"RECOLLECT_CLICKHOUSE_DSN": "clickhouse://default:secret@clickhouse:9000/default",
	"RECOLLECT_QDRANT_API_KEY": "secret",
	"RECOLLECT_LLM_API_KEY":    "secret",
}

func TestOverlays(t *testing.T) {
	served := servedProcess(t)
	for _, dir := range overlays {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r := render(t, dir)
			if len(r.workloads()) == 0 {
				t.Fatal("no workloads rendered")
			}
			for _, w := range r.workloads() {
				checkWorkload(t, r, w)
				for i := range w.spec.Containers {
					c := &w.spec.Containers[i]
					if c.Image == "recollect" || strings.HasPrefix(c.Image, "recollect:") {
						checkRecollectContainer(t, r, w, c, served)
					}
				}
			}
			checkNetworkPolicies(t, r)
			checkScaledObjects(t, r)
			// The overlay applies on a bare cluster; with the monitoring
			// component it gains the Prometheus Operator objects.
			if len(r.serviceMonitors) > 0 || len(r.rules) > 0 {
				t.Errorf("the overlay renders %d ServiceMonitors and %d PrometheusRules: they belong in components/monitoring",
					len(r.serviceMonitors), len(r.rules))
			}
			checkMonitoring(t, render(t, withMonitoring(t, dir)), served)
		})
	}
}

// checkWorkload holds every workload to the same bar: probes on, resources
// bounded, locked-down security context, a PDB, graceful termination.
func checkWorkload(t *testing.T, r *rendered, w podTemplate) {
	t.Helper()
	id := w.kind + "/" + w.name
	psc := w.spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("%s: pod securityContext.runAsNonRoot must be true", id)
	}
	if w.spec.TerminationGracePeriodSeconds == nil {
		t.Errorf("%s: terminationGracePeriodSeconds not set", id)
	}
	for _, c := range w.spec.Containers {
		cid := id + " container " + c.Name
		if c.StartupProbe == nil || c.LivenessProbe == nil || c.ReadinessProbe == nil {
			t.Errorf("%s: startup, liveness and readiness probes are all required", cid)
		}
		for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := c.Resources.Requests[res]; !ok {
				t.Errorf("%s: no %s request", cid, res)
			}
			if _, ok := c.Resources.Limits[res]; !ok {
				t.Errorf("%s: no %s limit", cid, res)
			}
		}
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("%s: no securityContext", cid)
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("%s: allowPrivilegeEscalation must be false", cid)
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("%s: readOnlyRootFilesystem must be true", cid)
		case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
			t.Errorf("%s: capabilities must drop ALL", cid)
		}
	}
	covered := false
	for _, p := range r.pdbs {
		if p.Spec.Selector != nil && selects(p.Spec.Selector.MatchLabels, w.labels) {
			covered = true
		}
	}
	if !covered {
		t.Errorf("%s: no PodDisruptionBudget selects it", id)
	}
}

func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// checkRecollectContainer runs the container's command, args and
// environment through the real configuration, and its probes against the
// routes the server registers.
func checkRecollectContainer(t *testing.T, r *rendered, w podTemplate, c *corev1.Container, served *servedInfo) {
	t.Helper()
	id := fmt.Sprintf("%s/%s container %s", w.kind, w.name, c.Name)
	if len(c.Command) != 1 || !strings.HasPrefix(c.Command[0], binDir) {
		t.Fatalf("%s: command %v: want one binary of %s", id, c.Command, binDir)
	}
	bin := strings.TrimPrefix(c.Command[0], binDir)
	args := c.Args
	target := ""
	switch {
	case bin == "recollect":
		if len(args) == 0 || args[0] != "run" {
			t.Fatalf("%s: recollect args %v: want run ...", id, args)
		}
		args = args[1:]
	case slices.Contains(app.PublicTargets(), bin):
		target = bin
	default:
		t.Fatalf("%s: %s is neither recollect nor a module binary (%v)", id, bin, app.PublicTargets())
	}

	env := containerEnv(t, r, c)
	root := materializeMounts(t, r, w, c)
	for k, v := range env {
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(v, m.MountPath+"/") && root[m.MountPath] != "" {
				env[k] = root[m.MountPath] + strings.TrimPrefix(v, m.MountPath)
			}
		}
	}

	var cfg app.Config
	fs := pflag.NewFlagSet(bin, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("config", "", "")
	cfg.RegisterFlags(fs, target)
	known := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { known[config.EnvName(f.Name)] = true })
	for k := range env {
		if strings.HasPrefix(k, config.EnvPrefix) && !known[k] {
			t.Errorf("%s: %s names no flag of %s", id, k, bin)
		}
	}
	if err := fs.Parse(args); err != nil {
		t.Errorf("%s: args %v: %v", id, args, err)
		return
	}
	if err := config.Apply(fs, "", func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Errorf("%s: %v", id, err)
		return
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("%s: configuration refused: %v", id, err)
	}
	if err := cfg.CheckExposure(); err != nil {
		t.Errorf("%s: %v", id, err)
	}

	_, port, err := net.SplitHostPort(cfg.Web.Addr)
	if err != nil {
		t.Fatalf("%s: http-addr %q: %v", id, cfg.Web.Addr, err)
	}
	for name, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil {
			t.Errorf("%s: %s probe must be an HTTP GET", id, name)
			continue
		}
		if !slices.Contains(served.patterns, "GET "+p.HTTPGet.Path) {
			t.Errorf("%s: %s probe path %s is not served (routes: %v)", id, name, p.HTTPGet.Path, served.patterns)
		}
		if got := portNumber(c, p.HTTPGet.Port); got != port {
			t.Errorf("%s: %s probe port %s, the server listens on %s (http-addr %s)", id, name, got, port, cfg.Web.Addr)
		}
	}
	if name := "readiness"; c.ReadinessProbe != nil && c.ReadinessProbe.HTTPGet != nil && c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("%s: %s probe must ask /readyz", id, name)
	}
	if g := w.spec.TerminationGracePeriodSeconds; g != nil && time.Duration(*g)*time.Second <= stopBudget {
		t.Errorf("%s: terminationGracePeriodSeconds %d must exceed the %s drain", id, *g, stopBudget)
	}
}

func portNumber(c *corev1.Container, p intstr.IntOrString) string {
	if p.Type == intstr.Int {
		return p.String()
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return fmt.Sprint(cp.ContainerPort)
		}
	}
	return "unknown port " + p.StrVal
}

// containerEnv resolves env and envFrom; secret values become samples.
func containerEnv(t *testing.T, r *rendered, c *corev1.Container) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil {
			t.Errorf("container %s: envFrom must name a ConfigMap (secrets go through env secretKeyRef)", c.Name)
			continue
		}
		cm := r.configMaps[ef.ConfigMapRef.Name]
		if cm == nil {
			t.Errorf("container %s: envFrom ConfigMap %s is not rendered", c.Name, ef.ConfigMapRef.Name)
			continue
		}
		for k, v := range cm.Data {
			env[k] = v
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			v, ok := secretSamples[e.Name]
			if !ok {
				t.Errorf("container %s: %s from a secret has no sample value in secretSamples", c.Name, e.Name)
			}
			env[e.Name] = v
		case e.ValueFrom.ConfigMapKeyRef != nil:
			cm := r.configMaps[e.ValueFrom.ConfigMapKeyRef.Name]
			if cm == nil {
				t.Errorf("container %s: %s: ConfigMap %s not rendered", c.Name, e.Name, e.ValueFrom.ConfigMapKeyRef.Name)
				continue
			}
			env[e.Name] = cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]
		}
	}
	return env
}

// materializeMounts writes the ConfigMaps a container mounts into a temp
// dir, so the configuration can read them (the domains file); it returns
// mount path → local dir.
func materializeMounts(t *testing.T, r *rendered, w podTemplate, c *corev1.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range c.VolumeMounts {
		for _, v := range w.spec.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			cm := r.configMaps[v.ConfigMap.Name]
			if cm == nil {
				t.Errorf("%s: volume %s: ConfigMap %s not rendered", w.name, v.Name, v.ConfigMap.Name)
				continue
			}
			dir := t.TempDir()
			for k, data := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, k), []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			out[m.MountPath] = dir
		}
	}
	return out
}

// checkNetworkPolicies: only ingest and query (or the single process that
// runs both) admit traffic from outside the namespace; NATS admits KEDA on
// its monitoring port.
func checkNetworkPolicies(t *testing.T, r *rendered) {
	t.Helper()
	public := map[string]bool{"ingest": true, "query": true, "single": true}
	for _, np := range r.netpols {
		for _, rule := range np.Spec.Ingress {
			external := len(rule.From) == 0
			for _, peer := range rule.From {
				if peer.NamespaceSelector != nil || peer.IPBlock != nil {
					external = true
				}
			}
			if !external {
				continue
			}
			if np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] == "nats" {
				if len(rule.Ports) != 1 || rule.Ports[0].Port == nil || rule.Ports[0].Port.String() != "monitor" {
					t.Errorf("NetworkPolicy %s: NATS may admit outside traffic on its monitor port only", np.Name)
				}
				continue
			}
			exprs := np.Spec.PodSelector.MatchExpressions
			if len(np.Spec.PodSelector.MatchLabels) != 0 || len(exprs) != 1 || exprs[0].Key != "app.kubernetes.io/component" || exprs[0].Operator != "In" {
				t.Errorf("NetworkPolicy %s admits outside traffic to pods it does not restrict by component", np.Name)
				continue
			}
			for _, v := range exprs[0].Values {
				if !public[v] {
					t.Errorf("NetworkPolicy %s admits outside traffic to %s", np.Name, v)
				}
			}
		}
	}
}

// checkScaledObjects: the nats-jetstream triggers name a stream of pkg/bus
// and the durable consumer the scaled worker really reads it with.
func checkScaledObjects(t *testing.T, r *rendered) {
	t.Helper()
	consumers := map[string][2]string{ // worker → stream, durable
		"extractor": {bus.StreamConv, extract.Durable},
		"embedder":  {bus.StreamFact, embedder.Durable},
	}
	deployments := map[string]string{}
	for _, d := range r.deployments {
		deployments[d.Name] = d.Spec.Template.Labels["app.kubernetes.io/component"]
	}
	scaled := map[string]bool{}
	for _, so := range r.scaledObjects {
		worker, ok := deployments[so.Spec.ScaleTargetRef.Name]
		if !ok {
			t.Errorf("ScaledObject %s scales %s, which is not a rendered Deployment", so.Metadata.Name, so.Spec.ScaleTargetRef.Name)
			continue
		}
		want, ok := consumers[worker]
		if !ok {
			t.Errorf("ScaledObject %s scales %s, which reads no JetStream consumer it could lag on", so.Metadata.Name, worker)
			continue
		}
		scaled[worker] = true
		for _, tr := range so.Spec.Triggers {
			if tr.Type != "nats-jetstream" {
				t.Errorf("ScaledObject %s: trigger %s, want nats-jetstream", so.Metadata.Name, tr.Type)
				continue
			}
			md := tr.Metadata
			if md["stream"] != want[0] || md["consumer"] != want[1] {
				t.Errorf("ScaledObject %s: stream %q consumer %q, %s reads %s with durable %s", so.Metadata.Name, md["stream"], md["consumer"], worker, want[0], want[1])
			}
			for _, k := range []string{"natsServerMonitoringEndpoint", "account", "lagThreshold"} {
				if md[k] == "" {
					t.Errorf("ScaledObject %s: trigger lacks %s", so.Metadata.Name, k)
				}
			}
			if !strings.HasSuffix(md["natsServerMonitoringEndpoint"], ":8222") {
				t.Errorf("ScaledObject %s: monitoring endpoint %s is not NATS's port 8222", so.Metadata.Name, md["natsServerMonitoringEndpoint"])
			}
		}
	}
	if len(r.deployments) > 1 {
		for w := range consumers {
			if !scaled[w] {
				t.Errorf("no ScaledObject scales the %s", w)
			}
		}
	}
}

// checkMonitoring: the ServiceMonitor scrapes a served path on a port the
// selected services have; every metric in the alert rules exists.
func checkMonitoring(t *testing.T, r *rendered, served *servedInfo) {
	t.Helper()
	for _, sm := range r.serviceMonitors {
		n := 0
		for _, s := range r.services {
			if !selects(sm.Spec.Selector.MatchLabels, s.Labels) {
				continue
			}
			n++
			for _, ep := range sm.Spec.Endpoints {
				if !slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port }) {
					t.Errorf("ServiceMonitor %s: service %s has no port %s", sm.Metadata.Name, s.Name, ep.Port)
				}
			}
		}
		if n == 0 {
			t.Errorf("ServiceMonitor %s selects no service", sm.Metadata.Name)
		}
		for _, ep := range sm.Spec.Endpoints {
			if !slices.Contains(served.patterns, "GET "+ep.Path) {
				t.Errorf("ServiceMonitor %s: path %s is not served", sm.Metadata.Name, ep.Path)
			}
		}
	}
	if len(r.rules) == 0 {
		t.Error("no PrometheusRule rendered")
	}
	for _, pr := range r.rules {
		for _, g := range pr.Spec.Groups {
			for _, rule := range g.Rules {
				checkExpr(t, "PrometheusRule "+pr.Metadata.Name+" alert "+rule.Alert, rule.Expr, served)
			}
		}
	}
}

var metricRef = regexp.MustCompile(`\b(?:recollect|go|process|promhttp)_[a-z0-9_]+`)

// checkExpr fails when a PromQL expression uses a metric the code does not
// export, or uses none of Recollect's.
func checkExpr(t *testing.T, where, expr string, served *servedInfo) {
	t.Helper()
	refs := metricRef.FindAllString(expr, -1)
	if len(refs) == 0 {
		t.Errorf("%s: %q uses no Recollect metric", where, expr)
	}
	for _, m := range refs {
		if !served.hasMetric(m) {
			t.Errorf("%s: metric %s is neither on a running process's /metrics nor registered in pkg/", where, m)
		}
	}
}

// servedInfo is what a running single process serves.
type servedInfo struct {
	patterns   []string
	scraped    map[string]bool // families on /metrics
	registered map[string]bool // Name: "recollect_..." in pkg/ (families that appear only after use)
}

func (s *servedInfo) hasMetric(name string) bool {
	for _, base := range []string{name, strings.TrimSuffix(name, "_bucket"), strings.TrimSuffix(name, "_sum"), strings.TrimSuffix(name, "_count")} {
		if s.scraped[base] || s.registered[base] {
			return true
		}
	}
	return false
}

var (
	servedOnce sync.Once
	served     *servedInfo
	servedErr  error
)

// servedProcess starts the single-process app once (as test/e2e does),
// reads its routes and scrapes /metrics after it is ready.
func servedProcess(t *testing.T) *servedInfo {
	t.Helper()
	servedOnce.Do(func() { served, servedErr = startServed(t.TempDir()) })
	if servedErr != nil {
		t.Fatal(servedErr)
	}
	return served
}

func startServed(dir string) (*servedInfo, error) {
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
	cfg.DataDir = dir
	cfg.Web.Addr = "127.0.0.1:0"
	a, err := app.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		return nil, err
	}
	defer func() { _ = a.Stop(ctx) }()
	base := a.Web().URL()
	client := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("single process not ready within 60s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return nil, fmt.Errorf("scrape /metrics: %w", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	s := &servedInfo{patterns: a.Web().Patterns(), scraped: map[string]bool{}}
	for _, line := range strings.Split(string(body), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
			s.scraped[f[2]] = true
		}
	}
	if s.registered, err = registeredMetrics("../pkg"); err != nil {
		return nil, err
	}
	return s, nil
}

var nameField = regexp.MustCompile(`Name:\s*"(recollect_[a-z0-9_]+)"`)

// registeredMetrics greps the Name fields of metric options in pkg/.
func registeredMetrics(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range nameField.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	return out, err
}
