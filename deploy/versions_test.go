package deploy

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pinnedImages maps a backend image to its key in versions.env and how its
// tag is written around the version.
var pinnedImages = map[string]struct{ key, prefix, suffix string }{
	"nats":                                 {key: "NATS_VERSION", suffix: "-alpine"},
	"qdrant/qdrant":                        {key: "QDRANT_VERSION", prefix: "v"},
	"clickhouse/clickhouse-server":         {key: "CLICKHOUSE_VERSION"},
	"redis":                                {key: "REDIS_VERSION", suffix: "-alpine"},
	"otel/opentelemetry-collector-contrib": {key: "OTEL_COLLECTOR_VERSION"},
	"jaegertracing/jaeger":                 {key: "JAEGER_VERSION"},
}

// readVersions parses versions.env (KEY=VALUE lines, # comments).
func readVersions(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("versions.env")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || v == "" {
			t.Fatalf("versions.env: bad line %q", line)
		}
		out[k] = v
	}
	return out
}

var imageLine = regexp.MustCompile(`(?m)^\s*(?:-\s*)?image:\s*"?([^\s"]+)"?`)

// TestOneSetOfBackendVersions: every backend image in docker-compose.yml and
// the k8s manifests is the version pinned in versions.env, DEPLOY.md's
// table says the same, and the NATS pin is the nats-server the tests build
// from go.mod (issue 20: NATS 2.11 / 2.11.9 / 2.15.2, Qdrant 1.17.0 / 1.15.4,
// ClickHouse 25.3 / 25.8).
func TestOneSetOfBackendVersions(t *testing.T) {
	pins := readVersions(t)
	for _, p := range pinnedImages {
		if pins[p.key] == "" {
			t.Fatalf("versions.env has no %s", p.key)
		}
	}
	files := []string{"../docker-compose.yml"}
	err := filepath.WalkDir("k8s", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range imageLine.FindAllStringSubmatch(string(data), -1) {
			ref := m[1]
			if strings.Contains(ref, "${") || ref == "recollect" || strings.HasPrefix(ref, "recollect:") {
				continue // the Recollect image itself
			}
			repo, tag, _ := strings.Cut(ref, ":")
			p, ok := pinnedImages[repo]
			if !ok {
				t.Errorf("%s: image %s is not pinned in versions.env", file, ref)
				continue
			}
			seen[repo] = true
			want := p.prefix + pins[p.key]
			if tag != want+p.suffix && tag != want+p.suffix+"-unprivileged" && tag != want+"-unprivileged" {
				t.Errorf("%s: %s, want version %s of versions.env (%s)", file, ref, pins[p.key], p.key)
			}
		}
	}
	for repo := range pinnedImages {
		if !seen[repo] {
			t.Errorf("%s is pinned but no deployment file runs it", repo)
		}
	}

	deployDoc, err := os.ReadFile("../docs/DEPLOY.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pinnedImages {
		if !regexp.MustCompile(`(?m)^\| [^|]+ \| ` + regexp.QuoteMeta(pins[p.key]) + ` \|`).Match(deployDoc) {
			t.Errorf("docs/DEPLOY.md's version table lacks %s %s", p.key, pins[p.key])
		}
	}

	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`github\.com/nats-io/nats-server/v2 v(\S+)`).FindSubmatch(gomod)
	if m == nil || string(m[1]) != pins["NATS_VERSION"] {
		t.Errorf("go.mod builds nats-server %s for the tests, versions.env pins %s", m, pins["NATS_VERSION"])
	}
}
