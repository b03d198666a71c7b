package testserver

import (
	"bufio"
	"bytes"
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
	bin := RequireBinary(t, redisBinary, redisInstallHint)
	dir := t.TempDir()
	var errs []error
	for range redisStartAttempts {
		addr, err := startRedis(t, bin, dir)
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
func startRedis(t testing.TB, bin, dir string) (string, error) {
	t.Helper()
	port := FreePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	out := &syncBuffer{}
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--logfile", "",
	)
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
		return redisPing(addr)
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
