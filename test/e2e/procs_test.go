package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
)

// buildBinaries builds the seven commands once per test binary run.
func buildBinaries(t *testing.T) string {
	t.Helper()
	return buildCommands(t, "./cmd/...")
}

// buildCommands builds the commands of pkgs into a temporary directory.
func buildCommands(t *testing.T, pkgs string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), pkgs)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build commands: %v\n%s", err, out)
	}
	return dir
}

// proc is one worker process of a split deployment.
type proc struct {
	name string
	bin  string
	args []string
	addr string
	log  string
	cmd  *exec.Cmd
	done chan error
}

func newProc(t *testing.T, binDir, name string, args ...string) *proc {
	port := testserver.FreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	p := &proc{name: name, bin: filepath.Join(binDir, name), addr: addr,
		args: append([]string{"--http-addr", addr, "--log-level", "debug"}, args...),
		log:  filepath.Join(t.TempDir(), name+".log")}
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM)
		if t.Failed() {
			b, _ := os.ReadFile(p.log)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("--- %s log (tail) ---\n%s", name, b)
		}
	})
	return p
}

func (p *proc) url() string { return "http://" + p.addr }

func (p *proc) start(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(p.bin, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=")
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	p.done = make(chan error, 1)
	go func() { p.done <- p.cmd.Wait(); f.Close() }()
	eventually(t, 60*time.Second, p.name+" ready", func() error {
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("%s exited: %v", p.name, err)
		default:
		}
		resp, err := http.Get(p.url() + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s /readyz = %d", p.name, resp.StatusCode)
		}
		return nil
	})
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
		<-p.done
	}
}
