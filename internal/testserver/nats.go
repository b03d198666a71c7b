package testserver

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testcerts"
)

// natsServerBinEnv names a prebuilt nats-server binary (make test builds one
// from the same nats-server/v2 module version the embedded server uses).
const natsServerBinEnv = "RECOLLECT_NATS_SERVER_BIN"

// NATSServerBin returns a nats-server binary built from the module version
// in go.mod: $RECOLLECT_NATS_SERVER_BIN, or one built into a temp dir.
func NATSServerBin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(natsServerBinEnv); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	out := filepath.Join(t.TempDir(), "nats-server")
	cmd := exec.Command("go", "build", "-o", out, "github.com/nats-io/nats-server/v2")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build nats-server: %v\n%s", err, b)
	}
	return out
}

// NATSServer starts a nats-server process with JetStream on a free loopback
// port and returns its client URL. It is stopped when the test ends.
func NATSServer(t testing.TB) string {
	t.Helper()
	addr, _ := natsServer(t)
	return "nats://" + addr
}

// NATSServerDir is NATSServer that also returns the server's JetStream
// store directory, for tests that look at what is on disk.
func NATSServerDir(t testing.TB) (url, storeDir string) {
	t.Helper()
	addr, dir := natsServer(t)
	return "nats://" + addr, filepath.Join(dir, "js")
}

// NATSServerTLS is NATSServer accepting only TLS clients that present a
// certificate signed by certs' CA; it returns "tls://127.0.0.1:PORT".
func NATSServerTLS(t testing.TB, certs testcerts.Set) string {
	t.Helper()
	addr, _ := natsServer(t, "--tlsverify", "--tlscert", certs.ServerCert, "--tlskey", certs.ServerKey, "--tlscacert", certs.CA)
	return "tls://" + addr
}

// natsServer starts the process with extra flags and returns host:port
// and its directory.
func natsServer(t testing.TB, extra ...string) (string, string) {
	t.Helper()
	bin := NATSServerBin(t)
	dir := t.TempDir()
	for attempt := 0; attempt < 5; attempt++ {
		port := FreePort(t)
		logPath := filepath.Join(dir, "nats.log")
		args := append([]string{"-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", filepath.Join(dir, "js"), "-l", logPath, "--http_port", "0"}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start nats-server: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		err := poll(10*time.Second, func() error {
			select {
			case err := <-exited:
				return &permanentError{fmt.Errorf("nats-server exited: %v", err)}
			default:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return err
			}
			return c.Close()
		})
		if err != nil {
			_ = cmd.Process.Kill()
			b, _ := os.ReadFile(logPath)
			t.Logf("nats-server on %s did not start (attempt %d): %v\n%s", addr, attempt+1, err, b)
			continue
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
			}
		})
		return addr, dir
	}
	t.Fatalf("nats-server did not start")
	return "", ""
}
