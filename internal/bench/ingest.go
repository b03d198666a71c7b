package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/ingest"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// IngestResult is what `recollect bench ingest --json` prints.
type IngestResult struct {
	Events           int     `json:"events"`
	Batch            int     `json:"batch"`
	Clients          int     `json:"clients"`
	EventsPerSec     float64 `json:"events_per_sec"`
	RawPublishPerSec float64 `json:"raw_publish_per_sec"`
	Ratio            float64 `json:"ratio"`
	P50Ms            float64 `json:"p50_ms"` // one request (a batch of events)
	P99Ms            float64 `json:"p99_ms"`
	// QPS is HTTP requests per second; Memories is 0: ingest only queues
	// events, the pipeline behind it makes the memories.
	QPS          float64 `json:"qps"`
	Memories     int     `json:"memories"`
	PayloadBytes int     `json:"payload_bytes"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	CPUs         int     `json:"cpus"`
	// Machine is where it ran: CPU, cores, Go version and the load at the end.
	Machine Machine `json:"machine"`
}

// benchEvents makes n realistic conversation turns.
func benchEvents(prefix string, n int) []memory.Event {
	lines := []string{
		"I prefer tabs over spaces, and always run make test before committing.",
		"Can you look at why the deploy job fails on the staging cluster since yesterday?",
		"The API gateway now routes /v2 traffic to the new billing service; keep the old one for a week.",
		"Never push directly to main; open a pull request and wait for two approvals.",
		"We decided to use PostgreSQL 16 with pgvector for the analytics store.",
	}
	out := make([]memory.Event, n)
	ts := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := range out {
		out[i] = memory.Event{ID: fmt.Sprintf("%s-%08d", prefix, i), Type: memory.EventTurn, Tenant: fmt.Sprintf("bench-%d", i%8),
			Namespace: "default", SessionID: fmt.Sprintf("s-%d", i/20), Subject: "user-1", Role: "user",
			Content: lines[i%len(lines)], TS: ts.Add(time.Duration(i) * time.Second)}
	}
	return out
}

// BenchIngest runs the ingest module alone in this process (embedded NATS
// in a temporary directory) and measures it.
func BenchIngest(ctx context.Context, events, batch, clients int) (IngestResult, error) {
	if events < batch || batch < 1 || clients < 1 {
		return IngestResult{}, fmt.Errorf("need events >= batch >= 1 and clients >= 1")
	}
	dir, err := os.MkdirTemp("", "recollect-bench-ingest-")
	if err != nil {
		return IngestResult{}, err
	}
	defer os.RemoveAll(dir)
	var cfg app.Config
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	cfg.RegisterFlags(fs, app.TargetIngest)
	cfg.DataDir = dir
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Bus.MaxBytes = 8 << 30
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.New(cfg, log)
	if err != nil {
		return IngestResult{}, err
	}
	if err := a.Start(ctx); err != nil {
		return IngestResult{}, err
	}
	defer func() { _ = a.Stop(context.WithoutCancel(ctx)) }()

	evs := benchEvents("http", events)
	bodies := make([][]byte, 0, events/batch)
	for i := 0; i+batch <= len(evs); i += batch {
		b, err := json.Marshal(map[string]any{"events": evs[i : i+batch]})
		if err != nil {
			return IngestResult{}, err
		}
		bodies = append(bodies, b)
	}
	url := a.Web().URL() + "/v1/events"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	lat := make([]time.Duration, len(bodies))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	bar := phaseProgress(ctx, len(bodies)*batch, "posting events", "events")
	begin := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(bodies) {
					return
				}
				t0 := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(bodies[i]))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusAccepted {
						err = fmt.Errorf("ingest answered %s", resp.Status)
					}
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				lat[i] = time.Since(t0)
				bar.Add(batch)
			}
		}()
	}
	wg.Wait()
	httpTook := time.Since(begin)
	bar.End()
	if firstErr != nil {
		return IngestResult{}, firstErr
	}

	// Raw JetStream async publishing of the same payloads, same process.
	raw := benchEvents("raw", len(bodies)*batch)
	msgs := make([]bus.Msg, len(raw))
	payload := 0
	for i := range raw {
		m, err := ingest.EventMsg(&raw[i])
		if err != nil {
			return IngestResult{}, err
		}
		msgs[i] = m
		payload += len(m.Data)
	}
	js := a.Bus().JetStream()
	begin = time.Now()
	if err := rawPublish(ctx, js, msgs); err != nil {
		return IngestResult{}, err
	}
	rawTook := time.Since(begin)

	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	n := len(bodies) * batch
	res := IngestResult{Events: n, Batch: batch, Clients: clients,
		EventsPerSec:     float64(n) / httpTook.Seconds(),
		RawPublishPerSec: float64(len(msgs)) / rawTook.Seconds(),
		P50Ms:            ms(lat[len(lat)/2]), P99Ms: ms(lat[min(len(lat)-1, len(lat)*99/100)]),
		PayloadBytes: payload / len(msgs), GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	res.Ratio = res.EventsPerSec / res.RawPublishPerSec
	res.QPS = float64(len(bodies)) / httpTook.Seconds()
	return res, nil
}

func rawPublish(ctx context.Context, js jetstream.JetStream, msgs []bus.Msg) error {
	const window = 4096
	for start := 0; start < len(msgs); start += window {
		end := min(len(msgs), start+window)
		futures := make([]jetstream.PubAckFuture, 0, end-start)
		for _, m := range msgs[start:end] {
			f, err := js.PublishAsync(m.Subject, m.Data, jetstream.WithMsgID(m.ID))
			if err != nil {
				return fmt.Errorf("raw publish: %w", err)
			}
			futures = append(futures, f)
		}
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				return fmt.Errorf("raw publish ack: %w", err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
