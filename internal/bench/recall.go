package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/internal/cputime"
	"github.com/recollect-dev/recollect/pkg/app"
)

// RecallResult is what `recollect bench recall --json` prints.
type RecallResult struct {
	Memories int `json:"memories"`
	Tenants  int `json:"tenants"`
	Queries  int `json:"queries"`
	Clients  int `json:"clients"`
	// Concurrency is Clients, under the name of the --concurrency flag.
	Concurrency int `json:"concurrency"`
	K           int `json:"k"`
	// P50Ms and P99Ms are the service's latency: one client alone, each
	// request sent when the previous one was answered, so no request
	// waits behind another.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// QPS is the throughput with Clients concurrent clients, and
	// ConcurrentP50Ms/P99Ms their latencies, which on a saturated machine
	// are mostly queueing (Little's law: about Clients / QPS).
	QPS             float64 `json:"qps"`
	ConcurrentP50Ms float64 `json:"concurrent_p50_ms"`
	ConcurrentP99Ms float64 `json:"concurrent_p99_ms"`
	// CPUMsPerRecall is the process's CPU time (user and system) over the
	// concurrent phase per recall, the clients' side (HTTP and JSON)
	// included: on a shared machine it moves less with the neighbours'
	// load than QPS, which also counts the wait for a core. StealShare is
	// the share of the machine's CPU time the hypervisor gave to other
	// guests meanwhile (/proc/stat; 0 where unknown).
	CPUMsPerRecall float64 `json:"cpu_ms_per_recall,omitempty"`
	StealShare     float64 `json:"steal_share"`
	// LearnWait* measure POST /v1/memories with wait=true, one client, after
	// the recall runs: the time until the memory is stored and answered.
	LearnWaits       int     `json:"learn_waits,omitempty"`
	LearnWaitP50Ms   float64 `json:"learn_wait_p50_ms,omitempty"`
	LearnWaitP99Ms   float64 `json:"learn_wait_p99_ms,omitempty"`
	LearnWaitMerged  int     `json:"learn_wait_merged,omitempty"`
	LearnWaitTimeout int     `json:"learn_wait_timeouts,omitempty"`
	Candidates       int     `json:"candidates_per_channel"`
	// Vectors is the stored vectors' source (see bench store --vectors).
	Vectors    string `json:"vectors"`
	Note       string `json:"note"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPUs       int    `json:"cpus"`
	// Machine is where it ran: CPU, cores, Go version and the load at the end.
	Machine Machine `json:"machine"`
}

const recallNote = "POST /v1/recall over loopback HTTP to the query module in this process (built-in model embeds every query; " +
	"queries are distinct, so the embedding cache rarely hits); memories are Zipf pseudo-word texts with vectors mixed from embedded DevChat sentences (--vectors text) " +
	"or random unit vectors (--vectors random), written to the local store before the modules start; learn_wait_* time POST /v1/memories with wait=true from one client " +
	"through the extractor, embedder and store modules of the same process (built-in model), after the recall runs"

// RecallOptions sizes a recall benchmark.
type RecallOptions struct {
	Memories, Tenants, Queries, Clients, SingleQueries, K int
	// LearnWaits is how many learns with wait=true to time; 0 skips them
	// (and the extractor and embedder modules).
	LearnWaits int
	// Vectors is the stored vectors' source: "text" (default) or "random".
	Vectors string
	// CPUProfile, when set, is where a CPU profile of the recall phases
	// (after the fill and the warm-up request) is written.
	CPUProfile string
}

// BenchRecall fills a local store, starts the query module on it in this
// process and sends it recall requests over HTTP.
func BenchRecall(ctx context.Context, opt RecallOptions) (RecallResult, error) {
	if opt.Tenants < 1 || opt.Memories < opt.Tenants || opt.Queries < 1 || opt.Clients < 1 || opt.SingleQueries < 1 || opt.K < 1 || opt.LearnWaits < 0 {
		return RecallResult{}, errNeed("memories >= tenants >= 1, queries, clients, single-queries, k >= 1 and learn-waits >= 0")
	}
	c := newCorpus(opt.Tenants)
	if opt.Vectors == "" {
		opt.Vectors = VectorsText
	}
	vs, err := newStoreVectors(ctx, c, opt.Vectors)
	if err != nil {
		return RecallResult{}, err
	}
	targets := []string{app.TargetQuery}
	if opt.LearnWaits > 0 { // a learn is stored by the extractor and the embedder
		targets = append(targets, app.TargetExtractor, app.TargetEmbedder)
	}
	a, cfg, stop, err := benchApp(ctx, "recall", c, vs, opt.Memories, targets...)
	if err != nil {
		return RecallResult{}, err
	}
	defer stop()

	total := opt.SingleQueries + opt.Queries
	bodies := make([][]byte, total)
	r := rand.New(rand.NewPCG(seedQueries, 13))
	for q := range bodies {
		b, err := json.Marshal(map[string]any{"tenant": benchTenant(r.IntN(opt.Tenants)), "query": c.query(q),
			"k": opt.K, "dry": true})
		if err != nil {
			return RecallResult{}, err
		}
		bodies[q] = b
	}
	url := a.Web().URL() + "/v1/recall"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: opt.Clients}}
	if _, err := postRecall(ctx, client, url, bodies[0]); err != nil { // loads the model's workspaces
		return RecallResult{}, err
	}
	if opt.CPUProfile != "" {
		stopProfile, err := StartCPUProfile(opt.CPUProfile)
		if err != nil {
			return RecallResult{}, err
		}
		defer stopProfile()
	}
	single, _, err := sendRecalls(ctx, client, url, bodies[:opt.SingleQueries], 1)
	if err != nil {
		return RecallResult{}, err
	}
	cpu0, ticks0 := cputime.Process(), readCPUTicks()
	lat, took, err := sendRecalls(ctx, client, url, bodies[opt.SingleQueries:], opt.Clients)
	if err != nil {
		return RecallResult{}, err
	}
	cpu, ticks := cputime.Process()-cpu0, readCPUTicks().since(ticks0)
	res := RecallResult{Memories: opt.Memories, Tenants: opt.Tenants, Queries: opt.Queries, Clients: opt.Clients, Concurrency: opt.Clients, K: opt.K, Vectors: opt.Vectors,
		P50Ms: percentile(single, 50), P99Ms: percentile(single, 99), QPS: float64(opt.Queries) / took.Seconds(),
		ConcurrentP50Ms: percentile(lat, 50), ConcurrentP99Ms: percentile(lat, 99), Candidates: cfg.Recall.Candidates,
		Note: recallNote, GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU(),
		CPUMsPerRecall: float64(cpu) / float64(time.Millisecond) / float64(opt.Queries), StealShare: ticks.stealShare()}
	if opt.LearnWaits > 0 {
		learns, err := sendLearns(ctx, client, a.Web().URL()+"/v1/memories", c, opt.Memories, opt.LearnWaits)
		if err != nil {
			return RecallResult{}, err
		}
		res.LearnWaits, res.LearnWaitMerged, res.LearnWaitTimeout = len(learns.latencies), learns.merged, learns.timedOut
		res.LearnWaitP50Ms, res.LearnWaitP99Ms = percentile(learns.latencies, 50), percentile(learns.latencies, 99)
	}
	return res, nil
}

// sendRecalls posts every body from clients goroutines and returns the
// sorted latencies and the wall time.
func sendRecalls(ctx context.Context, client *http.Client, url string, bodies [][]byte, clients int) ([]time.Duration, time.Duration, error) {
	lat := make([]time.Duration, len(bodies))
	bar := phaseProgress(ctx, len(bodies), fmt.Sprintf("recalls from %d clients", clients), "recalls")
	defer bar.End()
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	begin := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(bodies) {
					return
				}
				d, err := postRecall(ctx, client, url, bodies[i])
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				lat[i] = d
				bar.Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(begin)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	sortDurations(lat)
	return lat, took, nil
}

// postRecall sends one recall and checks that it answered with memories.
func postRecall(ctx context.Context, client *http.Client, url string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	begin := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("recall: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Memories []json.RawMessage `json:"memories"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	d := time.Since(begin)
	_, _ = io.Copy(io.Discard, resp.Body)
	switch {
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("recall answered %s", resp.Status)
	case err != nil:
		return 0, fmt.Errorf("decode recall answer: %w", err)
	case len(out.Memories) == 0:
		return 0, fmt.Errorf("recall answered no memories for %s", body)
	}
	return d, nil
}
