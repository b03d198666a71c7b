package drill

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// TestMain removes the binaries the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildBinaries builds the commands once per test binary.
func buildBinaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "recollect-drill-bin-"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./cmd/recollect", "./cmd/ingest",
			"./cmd/extractor", "./cmd/embedder", "./cmd/consolidator", "./cmd/topiary", "./cmd/query")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build commands: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// proc is one process of the split deployment, restartable on its port.
type proc struct {
	name, bin, addr, log string
	args                 []string
	cmd                  *exec.Cmd
	done                 chan error
	starts, crashes      int
}

func newProc(t *testing.T, binDir, bin, name string, args ...string) *proc {
	addr := "127.0.0.1:" + strconv.Itoa(testserver.FreePort(t))
	p := &proc{name: name, bin: filepath.Join(binDir, bin), addr: addr,
		args: append([]string{"--http-addr", addr}, args...),
		log:  filepath.Join(t.TempDir(), name+".log")}
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM)
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			if len(b) > 6000 {
				b = b[len(b)-6000:]
			}
			t.Logf("--- %s log (tail) ---\n%s", name, b)
		}
	})
	return p
}

func (p *proc) url() string { return "http://" + p.addr }

// start runs the process and waits until /readyz answers 200. A process
// that exits before it is ready (e.g. a worker whose Redis is down) is
// started again a second later, as a supervisor (systemd, Kubernetes)
// would; those exits are counted in crashes.
func (p *proc) start(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := p.startOnce(time.Until(deadline))
		if err == nil {
			return
		}
		if !errors.Is(err, errExited) || time.Now().After(deadline) {
			t.Fatalf("start %s: %v", p.name, err)
		}
		p.crashes++
		t.Logf("%s %v; starting it again in 1s", p.name, err)
		time.Sleep(time.Second)
	}
}

var errExited = errors.New("exited before it was ready")

func (p *proc) startOnce(timeout time.Duration) error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(p.bin, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=")
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return err
	}
	p.starts++
	done := make(chan error, 1)
	p.done = done
	go func() { done <- p.cmd.Wait(); f.Close() }()
	client := &http.Client{Timeout: 2 * time.Second}
	end := time.Now().Add(timeout)
	for {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("%w (%v)", errExited, err)
		default:
		}
		resp, err := client.Get(p.url() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/readyz = %d", resp.StatusCode)
		}
		if time.Now().After(end) {
			p.stop(syscall.SIGKILL)
			return fmt.Errorf("not ready within %s: %v", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends sig and waits for the exit (SIGKILL after a while).
func (p *proc) stop(sig syscall.Signal) {
	if p.cmd == nil || p.cmd.Process == nil {
		return
	}
	select {
	case err := <-p.done:
		p.done <- err
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		err := <-p.done
		p.done <- err
	}
}

// metrics scrapes the process's /metrics into name{labels} → value.
func (p *proc) metrics() (map[string]float64, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(p.url() + "/metrics")
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", p.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", p.name, resp.Status)
	}
	return parseMetrics(bufio.NewScanner(resp.Body))
}

func parseMetrics(sc *bufio.Scanner) (map[string]float64, error) {
	out := map[string]float64{}
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}
