package testserver

import (
	"errors"
	"fmt"
	"net"
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
)

const (
	natsNodeStartTimeout = 60 * time.Second
	natsNodeStopTimeout  = 10 * time.Second
)

// NATSCluster is a JetStream cluster of nats-server processes on loopback,
// each with its own file store, which a test can kill and restart node by
// node on the same ports and data (a chaos drill).
type NATSCluster struct {
	bin   string
	name  string
	nodes []*natsNode
}

type natsNode struct {
	name                            string
	clientPort, routePort, httpPort int
	dir                             string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error
}

// StartNATSCluster starts n nats-server nodes (n ≥ 3 for a JetStream
// quorum that survives one node) routed to each other, and waits until
// every node reports JetStream healthy. They stop when the test ends.
func StartNATSCluster(t testing.TB, n int) *NATSCluster {
	t.Helper()
	c := &NATSCluster{bin: NATSServerBin(t), name: "recollect-test"}
	t.Cleanup(func() { c.stopAll() })
	var errs []error
	for range natsClusterStartAttempts {
		err := c.start(t, n)
		if err == nil {
			return c
		}
		errs = append(errs, err)
		c.stopAll()
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
		// Another process took a port between FreePorts and the bind:
		// start again on new ports and new directories.
	}
	t.Fatalf("nats cluster: %v", errors.Join(errs...))
	return nil
}

// natsClusterStartAttempts bounds the starts of a cluster that lost a port
// to another process.
const natsClusterStartAttempts = 3

// start launches n nodes on fresh ports and directories and waits until
// each is healthy.
func (c *NATSCluster) start(t testing.TB, n int) error {
	base := t.TempDir()
	ports := FreePorts(t, 3*n)
	c.nodes = c.nodes[:0]
	for i := range n {
		c.nodes = append(c.nodes, &natsNode{name: fmt.Sprintf("n%d", i+1),
			clientPort: ports[3*i], routePort: ports[3*i+1], httpPort: ports[3*i+2],
			dir: filepath.Join(base, fmt.Sprintf("n%d", i+1))})
	}
	for i := range c.nodes {
		if err := c.launch(i); err != nil {
			return fmt.Errorf("start nats node %s: %w", c.nodes[i].name, err)
		}
	}
	for i := range c.nodes {
		if err := c.waitHealthy(i); err != nil {
			return err
		}
	}
	return nil
}

// stopAll stops every node of the last start.
func (c *NATSCluster) stopAll() {
	for _, nd := range c.nodes {
		_ = nd.stop(syscall.SIGTERM)
	}
}

// URLs is the comma-separated client URL list of every node.
func (c *NATSCluster) URLs() string {
	var us []string
	for i := range c.nodes {
		us = append(us, c.URL(i))
	}
	return strings.Join(us, ",")
}

// URL is node i's client URL.
func (c *NATSCluster) URL(i int) string {
	return "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(c.nodes[i].clientPort))
}

// Size is the number of nodes.
func (c *NATSCluster) Size() int { return len(c.nodes) }

// NodeName is node i's server name, as JetStream reports it (e.g. a
// stream's Cluster.Leader).
func (c *NATSCluster) NodeName(i int) string { return c.nodes[i].name }

// NodeIndex finds the node named name; -1 when none is.
func (c *NATSCluster) NodeIndex(name string) int {
	for i, nd := range c.nodes {
		if nd.name == name {
			return i
		}
	}
	return -1
}

// Kill sends SIGKILL to node i and waits for it to exit; its data stays.
func (c *NATSCluster) Kill(t testing.TB, i int) {
	t.Helper()
	if err := c.nodes[i].stop(syscall.SIGKILL); err != nil {
		t.Fatalf("kill nats node %s: %v", c.nodes[i].name, err)
	}
}

// Start restarts a stopped node i on its ports and data and waits until
// it reports JetStream healthy (caught up with the cluster).
func (c *NATSCluster) Start(t testing.TB, i int) {
	t.Helper()
	if err := c.launch(i); err != nil {
		t.Fatalf("restart nats node %s: %v", c.nodes[i].name, err)
	}
	if err := c.waitHealthy(i); err != nil {
		t.Fatalf("restart nats node %s: %v", c.nodes[i].name, err)
	}
}

func (c *NATSCluster) launch(i int) error {
	nd := c.nodes[i]
	nd.mu.Lock()
	defer nd.mu.Unlock()
	var routes []string
	for j, o := range c.nodes {
		if j != i {
			routes = append(routes, "nats-route://127.0.0.1:"+strconv.Itoa(o.routePort))
		}
	}
	if err := os.MkdirAll(nd.dir, 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(nd.dir, "nats.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.bin, "-n", nd.name, "-a", "127.0.0.1", "-p", strconv.Itoa(nd.clientPort),
		"-m", strconv.Itoa(nd.httpPort), "-js", "-sd", filepath.Join(nd.dir, "js"),
		"--cluster_name", c.name, "--cluster", "nats://127.0.0.1:"+strconv.Itoa(nd.routePort),
		"--routes", strings.Join(routes, ","))
	cmd.Stdout, cmd.Stderr = logf, logf
	// The kernel kills the node if the test binary dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("run %s: %w", c.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	nd.cmd, nd.exited = cmd, exited
	return nil
}

// waitHealthy polls node i's /healthz until JetStream answers ok.
func (c *NATSCluster) waitHealthy(i int) error {
	nd := c.nodes[i]
	url := "http://127.0.0.1:" + strconv.Itoa(nd.httpPort) + "/healthz"
	client := &http.Client{Timeout: 2 * time.Second}
	err := poll(natsNodeStartTimeout, func() error {
		nd.mu.Lock()
		exited := nd.exited
		nd.mu.Unlock()
		select {
		case err := <-exited:
			exited <- err
			return &permanentError{fmt.Errorf("node %s exited: %v", nd.name, err)}
		default:
		}
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("node %s /healthz = %d", nd.name, resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(nd.dir, "nats.log"))
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		return fmt.Errorf("node %s not healthy: %w\n%s", nd.name, err, b)
	}
	return nil
}

// stop signals the node and waits for its exit (SIGKILL after a while).
func (nd *natsNode) stop(sig syscall.Signal) error {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if nd.cmd == nil {
		return nil
	}
	select {
	case err := <-nd.exited:
		nd.exited <- err
		return nil
	default:
	}
	_ = nd.cmd.Process.Signal(sig)
	select {
	case err := <-nd.exited:
		nd.exited <- err
		return nil
	case <-time.After(natsNodeStopTimeout):
		_ = nd.cmd.Process.Kill()
		err := <-nd.exited
		nd.exited <- err
		return fmt.Errorf("no exit within %s of %s, killed", natsNodeStopTimeout, sig)
	}
}
