package testserver

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testcerts"
)

const (
	redisBinary      = "redis-server"
	redisInstallHint = "apt-get install -y redis-server"
	// redisStartAttempts bounds retries when another process takes the
	// chosen port between FreePort and redis-server binding it.
	redisStartAttempts = 5
	redisStartTimeout  = 10 * time.Second
	redisStopTimeout   = 5 * time.Second
)

// Redis starts a throwaway redis-server on a free loopback port, without
// persistence, and returns its address "127.0.0.1:PORT". The server stops
// when the test ends.
func Redis(t testing.TB) string {
	t.Helper()
	return redisServer(t, nil)
}

// RedisTLS starts a redis-server that listens only for TLS, with
// certs.ServerCert, and requires clients to present a certificate signed
// by certs.CA (tls-auth-clients yes). It returns "rediss://127.0.0.1:PORT/0".
// The test is skipped (or fails, see RequireBinary) when redis-server was
// built without TLS.
func RedisTLS(t testing.TB, certs testcerts.Set) string {
	t.Helper()
	bin := RequireBinary(t, redisBinary, redisInstallHint)
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err == nil && !redisHasTLS(bin) {
		msg := fmt.Sprintf("%s (%s) has no TLS support", bin, bytes.TrimSpace(out))
		if serversRequired() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return "rediss://" + redisServer(t, &certs) + "/0"
}

// redisHasTLS asks the binary to parse tls-port followed by a directive
// that does not exist: a build with TLS stops at the second, one without
// at the first.
func redisHasTLS(bin string) bool {
	out, _ := exec.Command(bin, "--tls-port", "0", "--recollect-probe", "yes").CombinedOutput()
	return bytes.Contains(out, []byte("recollect-probe"))
}

func redisServer(t testing.TB, certs *testcerts.Set) string {
	t.Helper()
	bin := RequireBinary(t, redisBinary, redisInstallHint)
	dir := t.TempDir()
	var errs []error
	for range redisStartAttempts {
		addr, err := startRedis(t, bin, dir, certs)
		if err == nil {
			return addr
		}
		errs = append(errs, err)
	}
	t.Fatalf("start redis-server: %v", errors.Join(errs...))
	return ""
}

// RedisURL is Redis as a URL for redis.ParseURL: "redis://127.0.0.1:PORT/0".
func RedisURL(t testing.TB) string {
	t.Helper()
	return "redis://" + Redis(t) + "/0"
}

// startRedis makes one attempt on one port. It registers the cleanup only
// once the server answers, and stops the process itself otherwise.
func startRedis(t testing.TB, bin, dir string, certs *testcerts.Set) (string, error) {
	t.Helper()
	port := FreePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	out := &syncBuffer{}
	args := []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--logfile", "",
	}
	ping := func() error { return redisPing(addr) }
	if certs != nil {
		args[1] = "0" // no plain port
		args = append(args, "--tls-port", strconv.Itoa(port),
			"--tls-cert-file", certs.ServerCert, "--tls-key-file", certs.ServerKey,
			"--tls-ca-cert-file", certs.CA, "--tls-auth-clients", "yes")
		ping = func() error { return redisPingTLS(addr, *certs) }
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = out
	cmd.Stderr = out
	// Cleanup does not run when the test binary dies (e.g. -timeout);
	// the kernel then kills the server instead of leaving it behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("run %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	err := poll(redisStartTimeout, func() error {
		select {
		case werr := <-exited:
			exited <- werr // keep it for stopRedis
			return &permanentError{err: fmt.Errorf("redis-server exited: %v", werr)}
		default:
		}
		return ping()
	})
	if err != nil {
		stopRedis(cmd, exited)
		return "", fmt.Errorf("port %d: %w; output:\n%s", port, err, out.String())
	}
	t.Cleanup(func() {
		if err := stopRedis(cmd, exited); err != nil {
			t.Errorf("stop redis-server on %s: %v; output:\n%s", addr, err, out.String())
		}
	})
	return addr, nil
}

// stopRedis asks the server to shut down and kills it if it does not.
func stopRedis(cmd *exec.Cmd, exited chan error) error {
	select {
	case <-exited:
		return nil
	default:
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		_ = cmd.Process.Kill()
	}
	select {
	case <-exited:
		return nil
	case <-time.After(redisStopTimeout):
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("no exit within %s of SIGINT, killed", redisStopTimeout)
	}
}

// redisPing speaks just enough RESP to check the server answers, so the
// harness does not depend on a client library.
func redisPing(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return fmt.Errorf("dial %s: %w", addr, err)
	}
	return redisPingConn(addr, conn)
}

// redisPingTLS is redisPing over TLS with the client certificate of certs.
func redisPingTLS(addr string, certs testcerts.Set) error {
	tc, err := certs.ClientTLS()
	if err != nil {
		return err
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, tc)
	if err != nil {
		return fmt.Errorf("dial tls %s: %w", addr, err)
	}
	return redisPingConn(addr, conn)
}

func redisPingConn(addr string, conn net.Conn) error {
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return fmt.Errorf("set deadline %s: %w", addr, err)
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return fmt.Errorf("ping %s: %w", addr, err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("read ping reply %s: %w", addr, err)
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("ping %s: unexpected reply %q", addr, line)
	}
	return nil
}

// syncBuffer collects server output for failure messages; the process
// writes to it from exec's copying goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
