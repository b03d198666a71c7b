// Package compose checks docker-compose.yml against the code: it loads the
// file with the compose-spec loader, and parses every recollect service's
// command and RECOLLECT_* environment with the real run flags.
package compose

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	composecli "github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/cli"
	"github.com/recollect-dev/recollect/pkg/config"
	"github.com/recollect-dev/recollect/pkg/web"
)

const (
	composeFile  = "../../docker-compose.yml"
	testImage    = "recollect:compose-test"
	workersCount = 6
)

// testEnv is the environment the file is interpolated with, as .env would
// give it.
func testEnv() map[string]string {
	return map[string]string{
		"RECOLLECT_IMAGE":     testImage,
		"RECOLLECT_API_KEYS":  "k-0123456789abcdef=acme:admin,k-fedcba9876543210=beta",
		"CLICKHOUSE_PASSWORD": "pw-compose-test",
	}
}

func load(t *testing.T, env map[string]string, profiles ...string) (*types.Project, error) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var kv []string
	for k, v := range env {
		kv = append(kv, k+"="+v)
	}
	opts, err := composecli.NewProjectOptions([]string{composeFile},
		composecli.WithWorkingDirectory(root),
		composecli.WithEnv(kv),
		composecli.WithProfiles(profiles),
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return opts.LoadProject(ctx)
}

func mustLoad(t *testing.T, profiles ...string) *types.Project {
	t.Helper()
	p, err := load(t, testEnv(), profiles...)
	if err != nil {
		t.Fatalf("load %s with profiles %v: %v", composeFile, profiles, err)
	}
	return p
}

func isRecollect(s types.ServiceConfig) bool { return s.Image == testImage }

func names(p *types.Project) []string {
	var out []string
	for name := range p.Services {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestProfiles: the distributed profile runs the six workers and their
// backends; the single profile runs `recollect run` alone (plus traces).
func TestProfiles(t *testing.T) {
	dist := mustLoad(t, "distributed")
	var targets []string
	for _, s := range dist.Services {
		if !isRecollect(s) {
			continue
		}
		i := slices.Index(s.Command, "--target")
		if i < 0 || i+1 >= len(s.Command) {
			t.Errorf("service %s: command %q names no --target", s.Name, s.Command)
			continue
		}
		targets = append(targets, s.Command[i+1])
	}
	slices.Sort(targets)
	want := []string{app.TargetConsolidator, app.TargetEmbedder, app.TargetExtractor, app.TargetIngest, app.TargetQuery, app.TargetTopiary}
	if !slices.Equal(targets, want) {
		t.Errorf("distributed profile runs targets %v, want the six workers %v", targets, want)
	}
	for _, backend := range []string{"nats", "qdrant", "redis", "clickhouse", "otel-collector", "jaeger"} {
		if _, ok := dist.Services[backend]; !ok {
			t.Errorf("distributed profile has no %s service (services: %v)", backend, names(dist))
		}
	}

	single := mustLoad(t, "single")
	var runs []string
	for _, s := range single.Services {
		if isRecollect(s) {
			runs = append(runs, s.Name+" "+strings.Join(s.Command, " "))
		}
	}
	if len(runs) != 1 || !strings.HasSuffix(runs[0], "run --target "+app.TargetAll) {
		t.Errorf("single profile runs %q, want one `recollect run --target all`", runs)
	}
	if len(dist.Services)-len(targets) < 4 || len(targets) != workersCount {
		t.Errorf("distributed profile: %d services, %d workers", len(dist.Services), len(targets))
	}
}

// TestSecretsAreNotInTheFile: API keys and passwords are interpolated from
// the environment; the file refuses to load without API keys, the single
// profile loads without CLICKHOUSE_PASSWORD (issue 20: it demanded it), and
// the distributed profile's clickhouse refuses to start without it.
func TestSecretsAreNotInTheFile(t *testing.T) {
	env := testEnv()
	delete(env, "RECOLLECT_API_KEYS")
	if _, err := load(t, env, "distributed"); err == nil || !strings.Contains(err.Error(), "RECOLLECT_API_KEYS") {
		t.Errorf("loading without RECOLLECT_API_KEYS: got %v, want an error naming it", err)
	}
	env = testEnv()
	delete(env, "CLICKHOUSE_PASSWORD")
	if _, err := load(t, env, "single"); err != nil {
		t.Errorf("the single profile without CLICKHOUSE_PASSWORD: %v", err)
	}
	dist, err := load(t, env, "distributed")
	if err != nil {
		t.Fatalf("the distributed profile without CLICKHOUSE_PASSWORD does not load: %v", err)
	}
	ch, ok := dist.Services["clickhouse"]
	if !ok {
		t.Fatal("no clickhouse service")
	}
	entry := strings.Join(ch.Entrypoint, " ")
	if !strings.Contains(entry, `[ -n "$CLICKHOUSE_PASSWORD" ] ||`) || !strings.Contains(entry, "exec /entrypoint.sh") {
		t.Errorf("clickhouse's entrypoint %q does not refuse an empty CLICKHOUSE_PASSWORD", entry)
	}
	for name, s := range dist.Services {
		if _, uses := s.Environment["RECOLLECT_CLICKHOUSE_DSN"]; uses {
			if dep, ok := s.DependsOn["clickhouse"]; !ok || dep.Condition != "service_healthy" {
				t.Errorf("%s uses ClickHouse without waiting for it to be healthy", name)
			}
		}
	}
	// The file as written, before interpolation (yaml.v3 applies the
	// anchors' merge keys).
	b, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	secret := []string{config.EnvName("api-keys"), config.EnvName("llm-api-key"), config.EnvName("clickhouse-dsn"), config.EnvName("qdrant-api-key"),
		config.EnvName("embed-api-key"), "CLICKHOUSE_PASSWORD"}
	seen := 0
	for name, s := range raw.Services {
		for k, v := range s.Environment {
			if !slices.Contains(secret, k) {
				continue
			}
			seen++
			if !strings.Contains(v, "${") {
				t.Errorf("service %s: %s is a literal in the file; take it from the environment (${...})", name, k)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no secret settings found in the raw file: the check reads nothing")
	}
}

// TestServices checks every service's healthcheck and dependencies, and
// every recollect service against the real configuration.
func TestServices(t *testing.T) {
	p := mustLoad(t, "distributed", "single")
	probePath := readinessPath(t)
	for _, s := range p.Services {
		t.Run(s.Name, func(t *testing.T) {
			checkHealthcheck(t, s)
			checkDependsOn(t, p, s)
			checkVolumes(t, p, s)
			if isRecollect(s) {
				checkRecollect(t, p, s, probePath)
			}
		})
	}
}

func checkHealthcheck(t *testing.T, s types.ServiceConfig) {
	hc := s.HealthCheck
	if hc == nil || hc.Disable || len(hc.Test) < 2 || (hc.Test[0] != "CMD" && hc.Test[0] != "CMD-SHELL") {
		t.Fatalf("no healthcheck (CMD or CMD-SHELL): %+v", hc)
	}
	if hc.Interval == nil || hc.Timeout == nil || hc.Retries == nil || hc.StartPeriod == nil {
		t.Errorf("healthcheck must set interval, timeout, retries and start_period: %+v", hc)
	}
	// A probe through the recollect binary (own image or mounted) must be
	// a command line the real CLI accepts.
	if hc.Test[0] == "CMD" && strings.HasSuffix(hc.Test[1], "/recollect") {
		args := hc.Test[2:]
		root := cli.NewRoot()
		cmd, rest, err := root.Find(args)
		if err != nil || cmd.Name() != "healthcheck" {
			t.Fatalf("healthcheck %q is not the recollect healthcheck command: %v", hc.Test, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("healthcheck %q: %v", hc.Test, err)
		}
		if !strings.HasPrefix(cmd.Flag("url").Value.String(), "http://127.0.0.1:") {
			t.Errorf("healthcheck %q must probe the container's own loopback", hc.Test)
		}
		if isRecollect(s) && hc.Test[1] != "/usr/local/bin/recollect" {
			t.Errorf("healthcheck %q: the image's binary is /usr/local/bin/recollect", hc.Test)
		}
		if !isRecollect(s) && !mountsImage(s, testImage, filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(hc.Test[1]))))) {
			t.Errorf("healthcheck %q runs a recollect binary this service does not mount from the recollect image", hc.Test)
		}
	}
}

func mountsImage(s types.ServiceConfig, image, target string) bool {
	return slices.ContainsFunc(s.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeImage && v.Source == image && v.Target == target
	})
}

func checkDependsOn(t *testing.T, p *types.Project, s types.ServiceConfig) {
	for name, dep := range s.DependsOn {
		if dep.Condition != types.ServiceConditionHealthy {
			t.Errorf("depends_on %s: condition %q, want %s", name, dep.Condition, types.ServiceConditionHealthy)
		}
		target, ok := p.Services[name]
		if !ok {
			t.Errorf("depends_on %s: no such service in the profiles %v", name, s.Profiles)
			continue
		}
		if target.HealthCheck == nil || target.HealthCheck.Disable {
			t.Errorf("depends_on %s: it has no healthcheck, so service_healthy never holds", name)
		}
		for _, prof := range s.Profiles {
			if len(target.Profiles) > 0 && !slices.Contains(target.Profiles, prof) {
				t.Errorf("depends_on %s: not in profile %s", name, prof)
			}
		}
	}
}

func checkVolumes(t *testing.T, p *types.Project, s types.ServiceConfig) {
	for _, v := range s.Volumes {
		switch v.Type {
		case types.VolumeTypeVolume:
			if _, ok := p.Volumes[v.Source]; !ok || v.Source == "" {
				t.Errorf("volume %q at %s is not a named volume of the file", v.Source, v.Target)
			}
		case types.VolumeTypeBind:
			if _, err := os.Stat(v.Source); err != nil {
				t.Errorf("bind mount %s: %v", v.Source, err)
			}
			if !v.ReadOnly {
				t.Errorf("bind mount %s must be read-only", v.Source)
			}
		case types.VolumeTypeImage:
		default:
			t.Errorf("volume of type %q at %s: use named volumes", v.Type, v.Target)
		}
	}
}

// readinessPath is the readiness route of the real HTTP server.
func readinessPath(t *testing.T) string {
	srv := web.New(web.Config{}, prometheus.NewRegistry(), func() error { return nil }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, pat := range srv.Patterns() {
		if strings.HasSuffix(pat, "/readyz") {
			return strings.TrimPrefix(pat, "GET ")
		}
	}
	t.Fatalf("the web server serves no /readyz (patterns %v)", srv.Patterns())
	return ""
}

func checkRecollect(t *testing.T, p *types.Project, s types.ServiceConfig, probePath string) {
	if len(s.Entrypoint) > 0 {
		t.Errorf("entrypoint %q: use the image's (recollect) and a command", s.Entrypoint)
	}
	if len(s.Command) == 0 || s.Command[0] != "run" {
		t.Fatalf("command %q: want `run --target <module>`", s.Command)
	}
	env := map[string]string{}
	for k, v := range s.Environment {
		if v != nil {
			env[k] = *v
		}
	}
	looked := map[string]bool{}
	cfg, err := cli.CheckRun("", s.Command[1:], func(k string) (string, bool) {
		looked[k] = true
		v, ok := env[k]
		return v, ok
	})
	if err != nil {
		t.Fatalf("the run configuration refuses command %q with its environment: %v", s.Command, err)
	}
	for k := range env {
		if strings.HasPrefix(k, config.EnvPrefix) && !looked[k] {
			t.Errorf("environment %s is not read by `recollect run` (no such flag, or the command line sets it too)", k)
		}
	}

	// Exposure: a non-loopback listener needs keys.
	if cfg.Auth.Keys == "" && cfg.Auth.KeysFile == "" && !cfg.Insecure {
		t.Errorf("listens on %s without API keys: the process refuses to start", cfg.Web.Addr)
	}
	_, port, err := net.SplitHostPort(cfg.Web.Addr)
	if err != nil {
		t.Fatalf("http-addr %q: %v", cfg.Web.Addr, err)
	}
	if want := "http://127.0.0.1:" + port + probePath; !slices.Contains(s.HealthCheck.Test, want) {
		t.Errorf("healthcheck %q does not probe %s", s.HealthCheck.Test, want)
	}
	for _, pc := range s.Ports {
		if pc.Target == 0 || port != strconv.FormatUint(uint64(pc.Target), 10) {
			t.Errorf("published port %+v does not reach http-addr %s", pc, cfg.Web.Addr)
		}
	}

	// Hardening and drain.
	if s.User != "65532:65532" || !s.ReadOnly || !slices.Contains(s.CapDrop, "ALL") || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
		t.Errorf("user %q read_only %v cap_drop %v security_opt %v: want non-root, read-only, no capabilities, no new privileges", s.User, s.ReadOnly, s.CapDrop, s.SecurityOpt)
	}
	if s.StopGracePeriod == nil || time.Duration(*s.StopGracePeriod) <= app.StopTimeout {
		t.Errorf("stop_grace_period %v must exceed the drain time %s", s.StopGracePeriod, app.StopTimeout)
	}

	// Every backend the configuration names is a service this one waits for.
	deps := map[string]string{}
	if cfg.Bus.URL != "" {
		deps["nats-url"] = host(t, cfg.Bus.URL)
	}
	if cfg.Redis.URL != "" {
		deps["redis-url"] = host(t, cfg.Redis.URL)
	}
	if cfg.ClickHouse.DSN != "" {
		deps["clickhouse-dsn"] = host(t, cfg.ClickHouse.DSN)
	}
	if cfg.QdrantAddr != "" {
		h, _, err := net.SplitHostPort(cfg.QdrantAddr)
		if err != nil {
			t.Fatalf("qdrant-addr %q: %v", cfg.QdrantAddr, err)
		}
		deps["qdrant-addr"] = h
	}
	if ep := env["OTEL_EXPORTER_OTLP_ENDPOINT"]; ep != "" {
		deps["OTEL_EXPORTER_OTLP_ENDPOINT"] = host(t, ep)
		checkCollector(t, p, ep)
	} else {
		t.Errorf("no OTEL_EXPORTER_OTLP_ENDPOINT: its traces go nowhere")
	}
	for setting, h := range deps {
		if _, ok := s.DependsOn[h]; !ok {
			t.Errorf("%s points at %q, which is not in depends_on", setting, h)
		}
	}
	if cfg.Bus.URL == "" {
		// Embedded NATS and the local store live in the data dir.
		if !slices.ContainsFunc(s.Volumes, func(v types.ServiceVolumeConfig) bool {
			return v.Type == types.VolumeTypeVolume && v.Target == cfg.DataDir
		}) {
			t.Errorf("data-dir %s is not a named volume", cfg.DataDir)
		}
	}
}

func host(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		t.Fatalf("%q is not a URL with a host: %v", raw, err)
	}
	return u.Hostname()
}

// checkCollector: the OTLP endpoint is the collector service's OTLP/HTTP
// receiver, and the collector exports to the trace UI service.
func checkCollector(t *testing.T, p *types.Project, endpoint string) {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	svc, ok := p.Services[u.Hostname()]
	if !ok {
		t.Fatalf("OTEL_EXPORTER_OTLP_ENDPOINT %s: no service %q", endpoint, u.Hostname())
	}
	var cfgPath string
	for _, v := range svc.Volumes {
		if v.Type == types.VolumeTypeBind && strings.HasSuffix(v.Source, ".yaml") {
			cfgPath = v.Source
		}
	}
	if cfgPath == "" || !slices.Contains(svc.Command, targetOf(svc, cfgPath)) {
		t.Fatalf("collector %s: command %q does not load its mounted config", svc.Name, svc.Command)
	}
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var col struct {
		Receivers map[string]struct {
			Protocols map[string]struct {
				Endpoint string `yaml:"endpoint"`
			} `yaml:"protocols"`
		} `yaml:"receivers"`
		Exporters map[string]struct {
			Endpoint string `yaml:"endpoint"`
		} `yaml:"exporters"`
		Service struct {
			Pipelines map[string]struct {
				Receivers []string `yaml:"receivers"`
				Exporters []string `yaml:"exporters"`
			} `yaml:"pipelines"`
		} `yaml:"service"`
	}
	if err := yaml.Unmarshal(b, &col); err != nil {
		t.Fatalf("collector config %s: %v", cfgPath, err)
	}
	traces, ok := col.Service.Pipelines["traces"]
	if !ok || !slices.Contains(traces.Receivers, "otlp") {
		t.Fatalf("collector config %s: no traces pipeline from the otlp receiver", cfgPath)
	}
	httpRecv := col.Receivers["otlp"].Protocols["http"].Endpoint
	if _, port, err := net.SplitHostPort(httpRecv); err != nil || port != u.Port() || u.Scheme != "http" {
		t.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT %s (OTLP/HTTP) does not match the collector's otlp http receiver %q", endpoint, httpRecv)
	}
	for _, exp := range traces.Exporters {
		ep := col.Exporters[exp].Endpoint
		h, _, err := net.SplitHostPort(ep)
		if err != nil {
			t.Errorf("exporter %s endpoint %q: %v", exp, ep, err)
			continue
		}
		if _, ok := p.Services[h]; !ok {
			t.Errorf("exporter %s sends to %q, not a service of the file", exp, ep)
		}
		if _, ok := svc.DependsOn[h]; !ok {
			t.Errorf("collector exports to %s but does not wait for it", h)
		}
	}
}

func targetOf(s types.ServiceConfig, source string) string {
	for _, v := range s.Volumes {
		if v.Source == source {
			return v.Target
		}
	}
	return ""
}
