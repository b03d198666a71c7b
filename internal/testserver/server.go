package testserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// requireServersEnv forces a missing server binary to fail the test instead
// of skipping it.
const requireServersEnv = "RECOLLECT_REQUIRE_SERVERS"

// pollInterval is how often WaitFor re-checks its condition.
const pollInterval = 20 * time.Millisecond

// serversRequired reports whether a missing server binary must fail the test.
func serversRequired() bool {
	return os.Getenv("CI") != "" || os.Getenv(requireServersEnv) == "1"
}

// RequireBinary returns the path of the executable name found on PATH. When
// it is missing, the test fails (in CI or with RECOLLECT_REQUIRE_SERVERS=1)
// or is skipped (elsewhere); either way the message carries installHint, the
// exact command that installs it, e.g. "apt-get install -y redis-server".
func RequireBinary(t testing.TB, name, installHint string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if serversRequired() {
		t.Fatalf("%s not found on PATH (required because CI or %s=1 is set); install it with: %s", name, requireServersEnv, installHint)
		return ""
	}
	t.Skipf("%s not found on PATH; install it with: %s (set %s=1 to make this a failure)", name, installHint, requireServersEnv)
	return ""
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago. The
// port is released before returning, so another process may grab it first:
// callers starting a server must retry on a bind failure.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("release free port %d: %v", port, err)
	}
	return port
}

// FreePorts returns n distinct TCP ports on 127.0.0.1 that were free a
// moment ago. Each is held until all are chosen: FreePort called n times
// can hand out one port twice (the kernel may give a just-released port to
// the next listener), and a server given one port for two of its
// listeners fails to start. As with FreePort, another process may take one
// before the caller binds it.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find free port: %v", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// WaitFor polls cond until it returns nil, failing the test with cond's last
// error once timeout has passed.
func WaitFor(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	if err := poll(timeout, cond); err != nil {
		t.Fatalf("wait %s: %v", timeout, err)
	}
}

// permanentError stops poll before its deadline: waiting longer cannot help
// (e.g. the server process has already exited).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// poll is WaitFor without the test, so callers can react to a timeout
// (e.g. retry on another port) instead of failing at once.
func poll(timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			return perm.err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("condition not met: %w", err)
		}
		time.Sleep(pollInterval)
	}
}
