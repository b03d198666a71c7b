package drill

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/internal/testserver"
)

// workers are the six module commands, each one process.
var workers = []string{"ingest", "extractor", "embedder", "consolidator", "topiary", "query"}

// deployment is everything the drill runs and breaks.
type deployment struct {
	nats  *testserver.NATSCluster
	redis *testserver.RedisServer
	ch    *testserver.ClickHouseServer
	procs map[string]*proc // the workers and "store"
	nc    *nats.Conn
	js    jetstream.JetStream
}

func deploy(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{procs: map[string]*proc{}}
	bins := make(chan string, 1)
	go func() { bins <- buildBinaries(t) }()
	d.nats = testserver.StartNATSCluster(t, 3)
	d.redis = testserver.StartRedis(t)
	d.ch = testserver.StartClickHouse(t)
	binDir := <-bins
	if binDir == "" {
		t.FailNow()
	}
	data := t.TempDir()
	common := []string{"--nats-url", d.nats.URLs(), "--nats-replicas", "3",
		"--redis-url", d.redis.URL(), "--clickhouse-dsn", d.ch.DSN(),
		"--usage-flush-interval", "200ms", "--consolidate-lease-ttl", "5s",
		// Short handler timeouts bound the redelivery wait (AckWait) of
		// what a killed worker held.
		"--extractor-timeout", "5s", "--embedder-timeout", "5s",
		"--topiary-debounce", "1s", "--topiary-max-delay", "5s", "--topiary-lease-ttl", "10s",
		"--insecure"}
	store := newProc(t, binDir, "recollect", "store", append([]string{"run", "--target", "store",
		"--data-dir", filepath.Join(data, "store")}, common...)...)
	store.start(t)
	d.procs["store"] = store
	for _, m := range workers {
		p := newProc(t, binDir, m, m, append([]string{"--data-dir", filepath.Join(data, m)}, common...)...)
		p.start(t)
		d.procs[m] = p
	}
	nc, err := nats.Connect(d.nats.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond), nats.Name("drill"))
	if err != nil {
		t.Fatalf("connect to the nats cluster: %v", err)
	}
	t.Cleanup(nc.Close)
	d.nc = nc
	if d.js, err = jetstream.New(nc); err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	return d
}

// streamLeader is the server name leading stream's RAFT group.
func (d *deployment) streamLeader(ctx context.Context, stream string) (string, error) {
	s, err := d.js.Stream(ctx, stream)
	if err != nil {
		return "", fmt.Errorf("look up stream %s: %w", stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return "", fmt.Errorf("stream %s info: %w", stream, err)
	}
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return "", fmt.Errorf("stream %s has no leader", stream)
	}
	if info.Config.Replicas != 3 {
		return "", fmt.Errorf("stream %s has %d replicas, want 3", stream, info.Config.Replicas)
	}
	return info.Cluster.Leader, nil
}

// usageSample is one process's usage counters at one moment.
type usageSample struct {
	Calls, Written, Dropped, Pending float64
}

func (d *deployment) usage(name string) (usageSample, error) {
	m, err := d.procs[name].metrics()
	if err != nil {
		return usageSample{}, err
	}
	var calls float64 // every model call, counted before the usage buffer
	for k, v := range m {
		if k == "recollect_model_calls_total" || strings.HasPrefix(k, "recollect_model_calls_total{") {
			calls += v
		}
	}
	return usageSample{Calls: calls, Written: m["recollect_usage_records_written_total"], Dropped: m["recollect_usage_records_dropped_total"],
		Pending: m["recollect_usage_records_pending"]}, nil
}
