package testserver

import (
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// RedisServer is a redis-server owned by one test that can be stopped and
// started again on the same port (without persistence, a restart starts
// empty, as a cache or lock server that lost its memory does).
type RedisServer struct {
	bin, dir string
	port     int

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
	out    *syncBuffer
}

// StartRedis is Redis with a handle for Stop and Start.
func StartRedis(t testing.TB) *RedisServer {
	t.Helper()
	s := &RedisServer{bin: RequireBinary(t, redisBinary, redisInstallHint), dir: t.TempDir()}
	var last error
	for range redisStartAttempts {
		s.port = FreePort(t)
		if last = s.start(); last == nil {
			t.Cleanup(func() { _ = s.stop() })
			return s
		}
	}
	t.Fatalf("start redis-server: %v", last)
	return nil
}

// Addr is "127.0.0.1:PORT".
func (s *RedisServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is "redis://127.0.0.1:PORT/0".
func (s *RedisServer) URL() string { return "redis://" + s.Addr() + "/0" }

// Stop shuts the server down (SIGINT, then SIGKILL).
func (s *RedisServer) Stop(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		t.Logf("stop redis-server on %s: %v", s.Addr(), err)
	}
}

// Start starts a stopped server again on the same port.
func (s *RedisServer) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("restart redis-server on %s: %v", s.Addr(), err)
	}
}

// Restart is Start for a goroutine other than the test's: it returns the
// error instead of failing the test.
func (s *RedisServer) Restart() error { return s.start() }

func (s *RedisServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &syncBuffer{}
	cmd := exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", s.dir, "--daemonize", "no", "--logfile", "")
	cmd.Stdout, cmd.Stderr = s.out, s.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %w", s.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addr := s.Addr()
	err := poll(redisStartTimeout, func() error {
		select {
		case werr := <-exited:
			exited <- werr
			return &permanentError{err: fmt.Errorf("redis-server exited: %v", werr)}
		default:
		}
		return redisPing(addr)
	})
	if err != nil {
		_ = stopRedis(cmd, exited)
		return fmt.Errorf("port %d: %w; output:\n%s", s.port, err, s.out.String())
	}
	s.cmd, s.exited = cmd, exited
	return nil
}

func (s *RedisServer) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	err := stopRedis(s.cmd, s.exited)
	s.cmd = nil
	return err
}
