package compose

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/deploytest"
)

// Opt-in: a real Docker engine with Compose v2.
const (
	envCompose  = "RECOLLECT_TEST_COMPOSE"   // "1" to run
	envImageTar = "RECOLLECT_TEST_IMAGE_TAR" // default: bin/recollect-image.tar (make image)
)

// dockerEngine skips unless the opt-in variables are set.
func dockerEngine(t *testing.T) {
	t.Helper()
	_, sockErr := os.Stat("/var/run/docker.sock")
	if os.Getenv(envCompose) != "1" || (os.Getenv("DOCKER_HOST") == "" && sockErr != nil) {
		t.Skipf("no Docker engine: set DOCKER_HOST (or have /var/run/docker.sock) and %s=1 to bring the single profile up and recall through it", envCompose)
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatalf("%s=1 but docker is not on PATH: %v", envCompose, err)
	}
}

// TestComposeUp: docker load the image make image wrote, bring the single
// profile up under a project name of its own and wait for every service
// to be healthy, post an event and recall it, then down -v.
func TestComposeUp(t *testing.T) {
	dockerEngine(t)
	tarball := os.Getenv(envImageTar)
	if tarball == "" {
		tarball = "../../bin/recollect-image.tar"
	}
	if _, err := os.Stat(tarball); err != nil {
		t.Fatalf("the image tarball: %v (run make image, or set %s)", err, envImageTar)
	}
	file, err := filepath.Abs(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()

	if out, err := docker(ctx, nil, "load", "-i", tarball); err != nil {
		t.Fatal(err)
	} else if !strings.Contains(out, "recollect:latest") {
		t.Fatalf("docker load did not load recollect:latest: %s", out)
	}

	suffix, err := deploytest.Suffix(8)
	if err != nil {
		t.Fatal(err)
	}
	key, setting, err := deploytest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"RECOLLECT_IMAGE=recollect:latest",
		"RECOLLECT_API_KEYS=" + setting,
	}
	compose := func(ctx context.Context, args ...string) (string, error) {
		full := append([]string{"compose", "-f", file, "-p", "recollect-test-" + suffix, "--profile", "single"}, args...)
		return docker(ctx, env, full...)
	}
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer dcancel()
		if _, err := compose(dctx, "down", "-v", "--remove-orphans"); err != nil {
			t.Errorf("compose down: %v", err)
		}
	})
	if _, err := compose(ctx, "up", "-d", "--wait", "--wait-timeout", "600"); err != nil {
		logs, _ := compose(context.Background(), "logs", "--no-color", "--tail", "100")
		t.Fatalf("%v\n--- logs:\n%s", err, logs)
	}
	addr, err := compose(ctx, "port", "recollect", "7700")
	if err != nil {
		t.Fatal(err)
	}
	url, err := publishedURL(addr)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := deploytest.RememberAndRecall(ctx, url, url, key, time.Second)
	if err != nil {
		logs, _ := compose(context.Background(), "logs", "--no-color", "--tail", "100", "recollect")
		t.Fatalf("%v\n--- logs:\n%s", err, logs)
	}
	t.Logf("recalled through %s: %q", url, resp.Memories[0].Memory.Content)
}

// publishedURL turns `docker compose port` output (host:port) into a base
// URL; an unspecified host is the local machine.
func publishedURL(out string) (string, error) {
	host, port, err := net.SplitHostPort(strings.TrimSpace(strings.SplitN(strings.TrimSpace(out), "\n", 2)[0]))
	if err != nil {
		return "", fmt.Errorf("docker compose port answered %q: %w", out, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// docker runs the docker CLI with extra environment and returns stdout.
func docker(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func TestPublishedURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:7700\n":         "http://127.0.0.1:7700",
		"0.0.0.0:49153\n":          "http://127.0.0.1:49153",
		"[::]:7700\n":              "http://127.0.0.1:7700",
		"10.0.0.5:7700\n":          "http://10.0.0.5:7700",
		"127.0.0.1:7700\n[::1]:77": "http://127.0.0.1:7700",
	} {
		got, err := publishedURL(in)
		if err != nil || got != want {
			t.Errorf("publishedURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := publishedURL(""); err == nil {
		t.Error("empty docker compose port output accepted")
	}
}
