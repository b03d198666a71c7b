// Package soak drives a running Recollect at a steady rate of mixed ingest,
// learn and recall for a given time, sampling recall latency, resident
// memory and goroutines, and checks nothing it was acknowledged was lost
// and that memory and goroutines do not trend upward (a leak).
package soak

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// Config sizes a soak.
type Config struct {
	URL         string        // the server (recollect run)
	APIKey      string        // bearer token, if the server wants one
	Tenant      string        // the soak's own tenant
	Duration    time.Duration // how long to drive load
	Rate        float64       // operations per second (ingest, learn and recall together)
	Workers     int           // concurrent clients
	SampleEvery time.Duration // how often /metrics is sampled
	// Settle bounds the wait, after the load, for every acknowledged
	// event to be stored.
	Settle time.Duration
	// RSSGrowth and GoroutineGrowth bound the rise of the last quarter's
	// mean over the first quarter's (after the first sample, a warm-up):
	// 0.5 allows +50 %. GoroutineSlack is added to the goroutine bound.
	RSSGrowth, GoroutineGrowth float64
	GoroutineSlack             float64
	Seed                       uint64
}

// Defaults returns the settings `recollect soak` starts from.
func Defaults() Config {
	return Config{URL: "http://127.0.0.1:7700", Tenant: "soak", Duration: 30 * time.Minute, Rate: 20, Workers: 8,
		SampleEvery: 30 * time.Second, Settle: 2 * time.Minute, RSSGrowth: 0.5, GoroutineGrowth: 0.5, GoroutineSlack: 50,
		Seed: uint64(time.Now().UnixNano())}
}

// Validate names the first bad setting.
func (c Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("url: required")
	case c.Tenant == "":
		return errors.New("tenant: required")
	case c.Duration <= 0:
		return fmt.Errorf("duration %s: must be positive", c.Duration)
	case c.Rate <= 0 || c.Rate > 10000:
		return fmt.Errorf("rate %g: must be in (0, 10000] operations per second", c.Rate)
	case c.Workers < 1 || c.Workers > 1000:
		return fmt.Errorf("workers %d: must be 1 to 1000", c.Workers)
	case c.SampleEvery <= 0 || c.SampleEvery > c.Duration:
		return fmt.Errorf("sample-every %s: must be positive and at most the duration %s", c.SampleEvery, c.Duration)
	case c.Settle <= 0:
		return fmt.Errorf("settle %s: must be positive", c.Settle)
	case c.RSSGrowth < 0 || c.GoroutineGrowth < 0 || c.GoroutineSlack < 0:
		return errors.New("growth bounds must not be negative")
	}
	return nil
}

// Sample is one look at the server.
type Sample struct {
	AtS          float64 `json:"at_s"`
	RSSBytes     float64 `json:"rss_bytes"`
	Goroutines   float64 `json:"goroutines"`
	RecallP50Ms  float64 `json:"recall_p50_ms"`
	RecallP99Ms  float64 `json:"recall_p99_ms"`
	Recalls      int     `json:"recalls"`
	Ops          int64   `json:"ops"`
	Errors       int64   `json:"errors"`
	ScrapeFailed string  `json:"scrape_error,omitempty"`
}

// Report is the soak's result; Failures empty means it passed.
type Report struct {
	Config                          Config   `json:"-"`
	DurationS                       float64  `json:"duration_s"`
	Ops                             int64    `json:"ops"`
	RateAchieved                    float64  `json:"ops_per_s"`
	Ingested                        int      `json:"events_acked"`
	Learned                         int      `json:"learns_acked"`
	Recalls                         int      `json:"recalls"`
	Errors                          int64    `json:"errors"`
	Stored                          int      `json:"stored"`
	Lost                            int      `json:"lost"`
	Duplicated                      int      `json:"duplicated"`
	RecallP99Ms                     float64  `json:"recall_p99_ms"`
	Samples                         []Sample `json:"samples"`
	RSSFirst, RSSLast               float64  `json:"-"`
	GoroutinesFirst, GoroutinesLast float64  `json:"-"`
	Failures                        []string `json:"failures"`
}

// runner holds one soak's state.
type runner struct {
	cfg   Config
	c     *client.Client
	log   *slog.Logger
	start time.Time

	ops, errs atomic.Int64

	mu       sync.Mutex
	acked    map[string]bool // event ids (ingest and learn) acknowledged
	ingested int
	learned  int
	lat      []time.Duration // recall latencies since the last sample
	allLat   []time.Duration
	firstErr error
}

// Run drives the load for cfg.Duration, then waits for storage and checks.
func Run(ctx context.Context, cfg Config, log *slog.Logger) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, log: log, acked: map[string]bool{},
		c: client.New(cfg.URL, client.WithAPIKey(cfg.APIKey), client.WithTenant(cfg.Tenant), client.WithRetries(8),
			client.WithMaxRetryWait(2*time.Second), client.WithUserAgent("recollect-soak"))}
	rep := &Report{Config: cfg}
	r.start = time.Now()
	loadCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	samplesDone := make(chan []Sample)
	go func() { samplesDone <- r.sample(loadCtx) }()
	r.load(loadCtx)
	rep.Samples = <-samplesDone
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rep.DurationS = time.Since(r.start).Seconds()
	rep.Ops, rep.Errors = r.ops.Load(), r.errs.Load()
	rep.RateAchieved = float64(rep.Ops) / rep.DurationS
	rep.Ingested, rep.Learned, rep.Recalls = r.ingested, r.learned, len(r.allLat)
	rep.RecallP99Ms = ms(percentile(r.allLat, 0.99))
	if err := r.verify(ctx, rep); err != nil {
		return rep, err
	}
	rep.judge()
	return rep, nil
}

// load issues operations at cfg.Rate from cfg.Workers clients.
func (r *runner) load(ctx context.Context) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := range r.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(w)))
			for n := range jobs {
				r.op(ctx, rng, n)
			}
		}()
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / r.cfg.Rate))
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			close(jobs)
			wg.Wait()
			return
		case <-tick.C:
		}
		select {
		case jobs <- n:
		case <-ctx.Done():
		}
	}
}

// op is operation n: half ingest (a turn), a quarter learn, a quarter recall.
func (r *runner) op(ctx context.Context, rng *rand.Rand, n int) {
	r.ops.Add(1)
	id := fmt.Sprintf("soak-%d-%07d", r.cfg.Seed%100000, n)
	var err error
	switch n % 4 {
	case 0, 2:
		_, err = r.c.Ingest(ctx, memory.Event{ID: id, Type: memory.EventTurn, Subject: "s-" + id, SessionID: "s-" + id,
			Role: "user", Content: "I prefer " + phrase(n)})
		if err == nil {
			r.mu.Lock()
			r.acked[id] = true
			r.ingested++
			r.mu.Unlock()
		}
	case 1:
		_, err = r.c.Learn(ctx, query.LearnRequest{ID: id, Subject: "s-" + id,
			MemoryInput: memory.MemoryInput{Content: "The depot stores the " + phrase(n) + " on shelf four", Type: memory.TypeFact}})
		if err == nil {
			r.mu.Lock()
			r.acked[id] = true
			r.learned++
			r.mu.Unlock()
		}
	default:
		t0 := time.Now()
		_, err = r.c.Recall(ctx, recall.Request{Query: "which " + phrase(rng.IntN(max(n, 1))) + " do they prefer?", K: 5})
		if err == nil {
			d := time.Since(t0)
			r.mu.Lock()
			r.lat = append(r.lat, d)
			r.allLat = append(r.allLat, d)
			r.mu.Unlock()
		}
	}
	if err != nil && ctx.Err() == nil {
		r.errs.Add(1)
		r.mu.Lock()
		if r.firstErr == nil {
			r.firstErr = err
			r.log.Warn("soak operation failed", "op", n%4, "err", err)
		}
		r.mu.Unlock()
	}
}
