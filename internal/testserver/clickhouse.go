package testserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/internal/testcerts"
)

const (
	clickHouseBinary      = "clickhouse-server"
	clickHouseInstallHint = "apt-get install -y clickhouse-server"
	// clickHouseStartAttempts bounds retries when another process takes a
	// chosen port between FreePort and clickhouse-server binding it.
	clickHouseStartAttempts = 5
	// clickHouseStartTimeout is generous: the server is usually up in about
	// 0.1 s, but CI machines are noisy.
	clickHouseStartTimeout = 30 * time.Second
	clickHouseStopTimeout  = 30 * time.Second
	clickHousePingTimeout  = time.Second
)

// ClickHouseServer is a clickhouse-server owned by one test. It can be
// stopped and started again on the same ports and data, so tests can show
// what a client does during an outage.
type ClickHouseServer struct {
	bin      string
	dir      string
	tcpPort  int
	httpPort int
	// With certs, the server also serves native TLS on securePort and
	// requires client certificates signed by certs.CA there.
	certs      *testcerts.Set
	securePort int

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
	out    *syncBuffer
}

// ClickHouse starts a throwaway clickhouse-server on free loopback ports and
// returns its DSN "clickhouse://127.0.0.1:PORT/default" (native protocol,
// user default, no password). The server stops when the test ends.
func ClickHouse(t testing.TB) string {
	t.Helper()
	return StartClickHouse(t).DSN()
}

// StartClickHouse is ClickHouse with a handle for Stop and Start.
func StartClickHouse(t testing.TB) *ClickHouseServer {
	t.Helper()
	return startClickHouse(t, nil)
}

// StartClickHouseTLS is StartClickHouse that also serves the native
// protocol over TLS (SecureAddr) with certs.ServerCert, requiring a client
// certificate signed by certs.CA.
func StartClickHouseTLS(t testing.TB, certs testcerts.Set) *ClickHouseServer {
	t.Helper()
	return startClickHouse(t, &certs)
}

// SecureAddr is the native TLS address "127.0.0.1:PORT" of a server from
// StartClickHouseTLS.
func (s *ClickHouseServer) SecureAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.securePort))
}

func startClickHouse(t testing.TB, certs *testcerts.Set) *ClickHouseServer {
	t.Helper()
	s := &ClickHouseServer{
		bin:   RequireBinary(t, clickHouseBinary, clickHouseInstallHint),
		dir:   t.TempDir(),
		certs: certs,
	}
	var errs []error
	for range clickHouseStartAttempts {
		ports := FreePorts(t, 3)
		s.tcpPort, s.httpPort = ports[0], ports[1]
		if certs != nil {
			s.securePort = ports[2]
		}
		err := s.start()
		if err == nil {
			t.Cleanup(func() {
				// A slow exit on a loaded machine ends in SIGKILL: the
				// server is gone either way, which is all cleanup needs.
				if err := s.stop(); err != nil {
					t.Logf("stop clickhouse-server on %s: %v", s.Addr(), err)
				}
			})
			return s
		}
		errs = append(errs, err)
	}
	t.Fatalf("start clickhouse-server: %v", errors.Join(errs...))
	return nil
}

// Addr is the native-protocol address "127.0.0.1:PORT".
func (s *ClickHouseServer) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.tcpPort))
}

// HTTPAddr is the HTTP interface address "127.0.0.1:PORT".
func (s *ClickHouseServer) HTTPAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.httpPort))
}

// Dir is the server's data directory.
func (s *ClickHouseServer) Dir() string { return s.dir }

// DSN is the clickhouse-go DSN of the server's default database.
func (s *ClickHouseServer) DSN() string {
	return "clickhouse://" + s.Addr() + "/default"
}

// Stop shuts the server down (SIGTERM, then SIGKILL) and keeps its data.
func (s *ClickHouseServer) Stop(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		// Killed after the grace period: down all the same.
		t.Logf("stop clickhouse-server on %s: %v", s.Addr(), err)
	}
}

// Start starts a stopped server again on the same ports and data.
func (s *ClickHouseServer) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("restart clickhouse-server on %s: %v", s.Addr(), err)
	}
}

// Restart is Start for a goroutine other than the test's: it returns the
// error instead of failing the test.
func (s *ClickHouseServer) Restart() error { return s.start() }

// start writes the config for the current ports, runs the server and waits
// until it answers a native-protocol ping.
func (s *ClickHouseServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("clickhouse-server on %s already running", s.Addr())
	}
	cfgPath := filepath.Join(s.dir, "config.xml")
	if err := os.WriteFile(cfgPath, []byte(clickHouseConfig(s.dir, s.tcpPort, s.httpPort, s.tlsConfig())), 0o600); err != nil {
		return fmt.Errorf("write clickhouse config %s: %w", cfgPath, err)
	}
	out := &syncBuffer{}
	cmd := exec.Command(s.bin, "--config-file="+cfgPath)
	cmd.Dir = s.dir
	cmd.Stdout = out
	cmd.Stderr = out
	// The kernel kills the server if the test binary dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %w", s.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	err := poll(clickHouseStartTimeout, func() error {
		select {
		case werr := <-exited:
			exited <- werr // keep it for stopClickHouse
			return &permanentError{err: fmt.Errorf("clickhouse-server exited: %v", werr)}
		default:
		}
		return clickHousePing(s.Addr())
	})
	if err != nil {
		_ = stopClickHouse(cmd, exited, clickHouseStopTimeout)
		return fmt.Errorf("ports %d/%d: %w; output:\n%s%s", s.tcpPort, s.httpPort, err, out.String(), s.errorLog())
	}
	s.cmd, s.exited, s.out = cmd, exited, out
	return nil
}

// stop is idempotent so the cleanup can run after a test's own Stop.
func (s *ClickHouseServer) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	err := stopClickHouse(s.cmd, s.exited, clickHouseStopTimeout)
	s.cmd, s.exited = nil, nil
	if err != nil {
		return fmt.Errorf("%w; output:\n%s%s", err, s.out.String(), s.errorLog())
	}
	return nil
}

// errorLog returns the tail of the server's error log for failure messages.
func (s *ClickHouseServer) errorLog() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "log", "server.err.log"))
	if err != nil || len(b) == 0 {
		return ""
	}
	const tail = 4096
	if len(b) > tail {
		b = b[len(b)-tail:]
	}
	return "error log:\n" + string(b)
}

// stopClickHouse sends SIGTERM and kills the process if it has not exited
// within timeout.
func stopClickHouse(cmd *exec.Cmd, exited chan error, timeout time.Duration) error {
	select {
	case <-exited:
		return nil
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = cmd.Process.Kill()
	}
	select {
	case <-exited:
		return nil
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("no exit within %s of SIGTERM, killed", timeout)
	}
}

// clickHousePing opens a native-protocol connection and pings, which is what
// the code under test will do first.
func clickHousePing(addr string) error {
	conn, err := clickhouse.Open(&clickhouse.Options{
		Addr:        []string{addr},
		DialTimeout: clickHousePingTimeout,
		ReadTimeout: clickHousePingTimeout,
	})
	if err != nil {
		return fmt.Errorf("open clickhouse %s: %w", addr, err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), clickHousePingTimeout)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping clickhouse %s: %w", addr, err)
	}
	return nil
}

// clickHouseConfig is a minimal server config that the 18.16 server in
// Debian accepts (and newer servers still read: <yandex> is an alias of
// <clickhouse>). Everything lives under dir; only loopback is served; no
// interserver port, no system log tables; caches and memory are small
// because tests write little.
// tlsConfig is the config's TLS part: empty without certs.
func (s *ClickHouseServer) tlsConfig() string {
	if s.certs == nil {
		return ""
	}
	return fmt.Sprintf(`
  <tcp_port_secure>%d</tcp_port_secure>
  <openSSL>
    <server>
      <certificateFile>%s</certificateFile>
      <privateKeyFile>%s</privateKeyFile>
      <caConfig>%s</caConfig>
      <verificationMode>strict</verificationMode>
      <loadDefaultCAFile>false</loadDefaultCAFile>
      <cacheSessions>false</cacheSessions>
      <disableProtocols>sslv2,sslv3</disableProtocols>
    </server>
  </openSSL>`, s.securePort, xmlEscape(s.certs.ServerCert), xmlEscape(s.certs.ServerKey), xmlEscape(s.certs.CA))
}

func clickHouseConfig(dir string, tcpPort, httpPort int, tlsPart string) string {
	p := func(sub string) string { return xmlEscape(filepath.Join(dir, sub) + "/") }
	return fmt.Sprintf(`<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>%[1]s</log>
    <errorlog>%[2]s</errorlog>
    <size>10M</size>
    <count>1</count>
    <console>0</console>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>%[3]d</tcp_port>
  <http_port>%[4]d</http_port>%[9]s
  <path>%[5]s</path>
  <tmp_path>%[6]s</tmp_path>
  <user_files_path>%[7]s</user_files_path>
  <format_schema_path>%[8]s</format_schema_path>
  <timezone>UTC</timezone>
  <mark_cache_size>16777216</mark_cache_size>
  <uncompressed_cache_size>16777216</uncompressed_cache_size>
  <max_concurrent_queries>32</max_concurrent_queries>
  <max_connections>256</max_connections>
  <shutdown_wait_unfinished>1</shutdown_wait_unfinished>
  <mlock_executable>false</mlock_executable>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <!-- parts replaced by a merge or mutation leave the disk within seconds,
       not the default 8 minutes, so tests can look at what is on disk -->
  <merge_tree>
    <old_parts_lifetime>1</old_parts_lifetime>
    <cleanup_delay_period>1</cleanup_delay_period>
  </merge_tree>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <profiles>
    <default>
      <max_memory_usage>1000000000</max_memory_usage>
      <max_threads>2</max_threads>
      <!-- idle native connections notice shutdown after this many seconds (default 10) -->
      <poll_interval>1</poll_interval>
    </default>
  </profiles>
  <quotas>
    <default>
      <interval>
        <duration>3600</duration>
        <queries>0</queries>
        <errors>0</errors>
        <result_rows>0</result_rows>
        <read_rows>0</read_rows>
        <execution_time>0</execution_time>
      </interval>
    </default>
  </quotas>
</yandex>
`, xmlEscape(filepath.Join(dir, "log", "server.log")), xmlEscape(filepath.Join(dir, "log", "server.err.log")),
		tcpPort, httpPort, p("data"), p("tmp"), p("user_files"), p("format_schemas"), tlsPart)
}

// xmlEscape keeps an unusual temp dir path from breaking the config.
func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
