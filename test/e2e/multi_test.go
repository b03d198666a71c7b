package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/query"
)

// cluster is the split deployment: the six module binaries plus the store
// process (the local engine served over NATS, standing in for Qdrant).
type cluster struct {
	procs map[string]*proc
	dsn   string
	// llm is the scripted LLM server the consolidator and topiary use.
	llm *llmtest.Server
	// Where the servers and processes keep their files (erase_multi_test.go
	// looks at them), and Redis's URL.
	dataDir, natsDir, clickHouseDir, redisURL string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	natsURL, natsDir := testserver.NATSServerDir(t)
	redisURL := testserver.RedisURL(t)
	ch := testserver.StartClickHouse(t)
	dsn := ch.DSN()
	bins := buildBinaries(t)
	data := t.TempDir()
	common := []string{"--nats-url", natsURL, "--redis-url", redisURL, "--clickhouse-dsn", dsn,
		"--usage-flush-interval", "200ms", "--topiary-debounce", "300ms",
		"--extractor-timeout", "5s", "--embedder-timeout", "5s",
		// No API keys here: tenancy_test.go covers them.
		"--insecure"}
	c := &cluster{procs: map[string]*proc{}, dsn: dsn, llm: llmtest.New(t),
		dataDir: data, natsDir: natsDir, clickHouseDir: ch.Dir(), redisURL: redisURL}
	c.llm.Handle(lifecycleScript)
	withLLM := []string{"--llm-url", c.llm.URL(), "--llm-level", "full", "--llm-model", "scripted", "--triage-min-age", "0s",
		// A consolidator killed mid-epoch holds its lease until it expires.
		"--consolidate-lease-ttl", "5s"}
	store := newProc(t, bins, "recollect", append([]string{"run", "--target", "store", "--data-dir", filepath.Join(data, "store")}, common...)...)
	store.start(t)
	c.procs["store"] = store
	for _, m := range []string{"ingest", "extractor", "embedder", "consolidator", "topiary", "query"} {
		args := append([]string{"--data-dir", filepath.Join(data, m)}, common...)
		if m == "consolidator" || m == "topiary" {
			args = append(args, withLLM...)
		}
		p := newProc(t, bins, m, args...)
		p.start(t)
		c.procs[m] = p
	}
	return c
}

// TestSplitDeployment runs the scenarios on one cluster (starting
// ClickHouse and seven processes is the slow part).
func TestSplitDeployment(t *testing.T) {
	c := startCluster(t)
	t.Run("recall across processes", func(t *testing.T) { recallAcrossProcesses(t, c) })
	t.Run("a streamed conversation across processes", func(t *testing.T) {
		streamConversation(t, c.procs["ingest"].url(), c.procs["query"].url(), "talk")
	})
	t.Run("kill workers mid-stream", func(t *testing.T) { killWorkersMidStream(t, c) })
	t.Run("lifecycle across processes", func(t *testing.T) { lifecycleAcrossProcesses(t, c) })
	t.Run("erase across processes", func(t *testing.T) { eraseAcrossProcesses(t, c) })
}

func recallAcrossProcesses(t *testing.T, c *cluster) {
	ingest, query := c.procs["ingest"].url(), c.procs["query"].url()
	if code := postJSON(t, ingest+"/v1/events", turnEvent("acme", "turn-1", preferenceTurn), nil); code != http.StatusAccepted {
		t.Fatalf("ingest answered %d", code)
	}
	eventually(t, 90*time.Second, "recall the indentation preference across processes", recallIndent(t, query, "acme"))
	eventually(t, 30*time.Second, "usage rows in clickhouse", func() error {
		n, err := usageRows(c.dsn, "embedder")
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("no embedder usage rows yet")
		}
		return nil
	})
}

func usageRows(dsn, component string) (uint64, error) {
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return 0, err
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n uint64
	err = conn.QueryRow(context.Background(), "SELECT count() FROM recollect_usage WHERE component = ?", component).Scan(&n)
	return n, err
}

// killWorkersMidStream SIGKILLs the extractor and the embedder while
// events flow, restarts them, and checks every acknowledged event became
// exactly one memory, reinforced by nothing twice.
func killWorkersMidStream(t *testing.T, c *cluster) {
	ingest, queryURL := c.procs["ingest"].url(), c.procs["query"].url()
	const n = 120
	send := func(from, to int) {
		var evs []any
		for i := from; i < to; i++ {
			evs = append(evs, map[string]any{"id": fmt.Sprintf("m-%d", i), "type": "memory", "tenant": "kill",
				"subject": fmt.Sprintf("user-%d", i), "memory": map[string]any{"content": fmt.Sprintf("Fact number %d about the kill test", i), "type": "fact"}})
		}
		if code := postJSON(t, ingest+"/v1/events", map[string]any{"events": evs}, nil); code != http.StatusAccepted {
			t.Fatalf("ingest answered %d", code)
		}
	}
	count := func() int {
		var s query.Stats
		getJSON(t, queryURL+"/v1/stats?tenant=kill", &s)
		return s.Memories
	}
	send(0, 40)
	eventually(t, 60*time.Second, "first memories stored", func() error {
		if count() == 0 {
			return fmt.Errorf("none stored yet")
		}
		return nil
	})
	c.procs["embedder"].stop(syscall.SIGKILL)
	send(40, 80)
	c.procs["extractor"].stop(syscall.SIGKILL)
	send(80, n)
	send(0, n) // a client retrying everything: deduplicated by event id
	c.procs["extractor"].start(t)
	c.procs["embedder"].start(t)
	eventually(t, 120*time.Second, "every event stored", func() error {
		if got := count(); got != n {
			return fmt.Errorf("%d memories, want %d", got, n)
		}
		return nil
	})
	var list query.ListResponse
	getJSON(t, queryURL+"/v1/memories?tenant=kill&limit=1000", &list)
	if len(list.Memories) != n {
		t.Fatalf("listed %d memories, want %d", len(list.Memories), n)
	}
	for _, m := range list.Memories {
		if m.RepetitionCount != 1 || len(m.SourceIDs) != 1 {
			t.Fatalf("memory %q stored with repetition %d and sources %v, want exactly once", m.Content, m.RepetitionCount, m.SourceIDs)
		}
	}
}
