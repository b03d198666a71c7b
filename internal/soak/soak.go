// Package soak drives a running Recollect at a steady rate of mixed ingest,
// learn and recall for a given time, sampling recall latency, resident
// memory and goroutines, and checks nothing it was acknowledged was lost
// and that memory and goroutines do not trend upward (a leak).
//
// The run has two phases. During the warm-up the dataset grows (ingest
// and learn add memories); after it, the steady phase forgets as many
// memories as it adds (each forget purges the subjects of the two oldest
// stored writes), so the dataset stays the same size and a rise of
// resident memory can only be a leak, not growth. The memory and
// goroutine trends are judged over the steady phase only.
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
	// WarmUp is the growing phase; after it the mix forgets as much as it
	// adds. Zero means a third of Duration.
	WarmUp time.Duration
	// RSSGrowth and GoroutineGrowth bound the rise of the last quarter's
	// mean over the first quarter's of the steady phase's samples (the
	// first of them is left out): 0.25 allows +25 %. GoroutineSlack is
	// added to the goroutine bound.
	RSSGrowth, GoroutineGrowth float64
	GoroutineSlack             float64
	Seed                       uint64
}

// Defaults returns the settings `recollect soak` starts from.
func Defaults() Config {
	return Config{URL: "http://127.0.0.1:7700", Tenant: "soak", Duration: 30 * time.Minute, Rate: 20, Workers: 8,
		SampleEvery: 30 * time.Second, Settle: 2 * time.Minute, RSSGrowth: 0.25, GoroutineGrowth: 0.5, GoroutineSlack: 50,
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
	case c.WarmUp < 0 || c.WarmUp >= c.Duration:
		return fmt.Errorf("warm-up %s: must be at least 0 and less than the duration %s", c.WarmUp, c.Duration)
	case c.RSSGrowth < 0 || c.GoroutineGrowth < 0 || c.GoroutineSlack < 0:
		return errors.New("growth bounds must not be negative")
	}
	return nil
}

// Sample is one look at the server.
type Sample struct {
	AtS          float64 `json:"at_s"`
	Steady       bool    `json:"steady"` // taken in the steady phase
	Live         int     `json:"live"`   // acknowledged writes not forgotten
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
	Config       Config  `json:"-"`
	DurationS    float64 `json:"duration_s"`
	Ops          int64   `json:"ops"`
	RateAchieved float64 `json:"ops_per_s"`
	Ingested     int     `json:"events_acked"`
	Learned      int     `json:"learns_acked"`
	Forgotten    int     `json:"forgotten"`
	// ForgottenLeft counts forgotten writes that still have a memory.
	ForgottenLeft                   int      `json:"forgotten_left"`
	Recalls                         int      `json:"recalls"`
	Errors                          int64    `json:"errors"`
	Stored                          int      `json:"stored"`
	Lost                            int      `json:"lost"`
	LostIDs                         []string `json:"lost_ids,omitempty"` // the first ten
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
	acked    map[string]bool // event ids (ingest and learn) acknowledged and not forgotten
	order    []string        // those ids, oldest first: the next to forget
	gone     map[string]bool // event ids whose subject was purged
	unsure   map[string]bool // event ids whose purge failed: it may have happened
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
	if cfg.WarmUp == 0 {
		cfg.WarmUp = cfg.Duration / 3
	}
	r := &runner{cfg: cfg, log: log, acked: map[string]bool{}, gone: map[string]bool{}, unsure: map[string]bool{},
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
	rep.Ingested, rep.Learned, rep.Recalls, rep.Forgotten = r.ingested, r.learned, len(r.allLat), len(r.gone)
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

// op is operation n. During the warm-up: half ingest (a turn), a quarter
// learn, a quarter recall. In the steady phase: a quarter each of ingest,
// learn, forget (of two writes) and recall.
func (r *runner) op(ctx context.Context, rng *rand.Rand, n int) {
	r.ops.Add(1)
	id := fmt.Sprintf("soak-%d-%07d", r.cfg.Seed%100000, n)
	kind := n % 4
	if kind == 2 && r.steady() {
		kind = 4
	}
	var err error
	switch kind {
	case 0, 2:
		_, err = r.c.Ingest(ctx, memory.Event{ID: id, Type: memory.EventTurn, Subject: "s-" + id, SessionID: "s-" + id,
			Role: "user", Content: "I prefer " + phrase(n)})
		if err == nil {
			r.added(id, &r.ingested)
		}
	case 1:
		_, err = r.c.Learn(ctx, query.LearnRequest{ID: id, Subject: "s-" + id,
			MemoryInput: memory.MemoryInput{Content: "The depot stores the " + phrase(n) + " on shelf four", Type: memory.TypeFact}})
		if err == nil {
			r.added(id, &r.learned)
		}
	case 4:
		err = r.forget(ctx, 2)
	default:
		t0 := time.Now()
		_, err = r.c.Recall(ctx, client.RecallRequest{Query: "which " + phrase(rng.IntN(max(n, 1))) + " do they prefer?", K: 5})
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

// steady reports whether the warm-up is over.
func (r *runner) steady() bool { return time.Since(r.start) >= r.cfg.WarmUp }

// added records an acknowledged write.
func (r *runner) added(id string, count *int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked[id] = true
	r.order = append(r.order, id)
	*count++
}

// forget purges the subjects of the k oldest acknowledged writes. A write
// not yet stored (nothing to purge) goes back to the end of the line: it
// stays acknowledged, and verify expects it stored. A purge that failed
// (the end of the load cuts one short) may have happened: verify purges
// it again.
func (r *runner) forget(ctx context.Context, k int) error {
	for range k {
		r.mu.Lock()
		if len(r.order) == 0 {
			r.mu.Unlock()
			return nil
		}
		id := r.order[0]
		r.order = r.order[1:]
		r.mu.Unlock()
		n, err := r.c.PurgeSubject(ctx, "", "s-"+id)
		r.mu.Lock()
		switch {
		case err != nil:
			delete(r.acked, id)
			r.unsure[id] = true
		case n > 0:
			delete(r.acked, id)
			r.gone[id] = true
		default:
			r.order = append(r.order, id)
		}
		r.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// live counts the acknowledged writes not forgotten.
func (r *runner) live() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.acked)
}
