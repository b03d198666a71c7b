package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
)

// LearnRun is one phase of `recollect bench learn`: learns with wait=true
// from Writers concurrent clients.
type LearnRun struct {
	Writers  int     `json:"writers"`
	Learns   int     `json:"learns"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	QPS      float64 `json:"qps"`
	Merged   int     `json:"merged"`
	TimedOut int     `json:"timed_out"`
}

// LearnResult is what `recollect bench learn --json` prints. P50Ms and
// P99Ms are the one-writer figures; Runs has every writer count, and
// Duplicates the learns that an existing memory absorbed.
type LearnResult struct {
	Memories   int        `json:"memories"`
	P50Ms      float64    `json:"p50_ms"`
	P99Ms      float64    `json:"p99_ms"`
	QPS        float64    `json:"qps"`
	Runs       []LearnRun `json:"runs"`
	Duplicates LearnRun   `json:"duplicates"`
	Note       string     `json:"note"`
	Machine    Machine    `json:"machine"`
}

const learnNote = "POST /v1/memories with wait=true over loopback HTTP: ingest onto the embedded JetStream, the extractor, " +
	"the embedder (built-in model, near-duplicate search, local store with its fsynced log) and the answer, all in this process; " +
	"each learn is a new memory of a store pre-filled with --memories; duplicates re-learn stored contents reworded " +
	"(a trailing period, a capital) under new event ids, which the embedder folds into the stored memory"

// LearnOptions sizes a learn benchmark.
type LearnOptions struct {
	Memories, Learns, Duplicates int
	Writers                      []int
}

// BenchLearn fills a local store, starts the query, extractor and embedder
// modules on it in this process and times learns with wait=true.
func BenchLearn(ctx context.Context, opt LearnOptions) (LearnResult, error) {
	if opt.Memories < 1 || opt.Learns < 1 || opt.Duplicates < 0 || len(opt.Writers) == 0 {
		return LearnResult{}, errNeed("memories, learns and writers >= 1, duplicates >= 0")
	}
	c := newCorpus(1)
	a, _, stop, err := benchApp(ctx, "learn", c, c, opt.Memories, app.TargetQuery, app.TargetExtractor, app.TargetEmbedder)
	if err != nil {
		return LearnResult{}, err
	}
	defer stop()

	maxWriters := 1
	for _, n := range opt.Writers {
		maxWriters = max(maxWriters, n)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: maxWriters}}
	url := a.Web().URL() + "/v1/memories"
	next := opt.Memories // contents past the filled ones are new
	body := func(i int, content string) ([]byte, error) {
		return json.Marshal(map[string]any{"tenant": c.tenant(0), "content": content, "domain": "general", "wait": true, "timeout": learnTimeout})
	}
	// Warm up: the model's workspaces, the consumers' first pulls.
	if _, err := timeLearns(ctx, client, url, 1, 5, func(i int) ([]byte, error) { return body(i, c.text(next+i)) }, "warm-up"); err != nil {
		return LearnResult{}, err
	}
	next += 5
	res := LearnResult{Memories: opt.Memories, Note: learnNote}
	for _, n := range opt.Writers {
		first := next
		run, err := timeLearns(ctx, client, url, n, opt.Learns, func(i int) ([]byte, error) { return body(i, c.text(first+i)) }, "")
		if err != nil {
			return LearnResult{}, err
		}
		next += opt.Learns
		res.Runs = append(res.Runs, run)
	}
	if opt.Duplicates > 0 {
		// Reworded contents of memories learned above: a new id, the same fact.
		dup, err := timeLearns(ctx, client, url, 1, opt.Duplicates, func(i int) ([]byte, error) {
			t := c.text(opt.Memories + 5 + i%(next-opt.Memories-5))
			return body(i, strings.ToUpper(t[:1])+t[1:]+".")
		}, "duplicates")
		if err != nil {
			return LearnResult{}, err
		}
		res.Duplicates = dup
	}
	res.P50Ms, res.P99Ms, res.QPS = res.Runs[0].P50Ms, res.Runs[0].P99Ms, res.Runs[0].QPS
	res.Machine = ThisMachine()
	return res, nil
}

// timeLearns posts n learns with wait=true from writers goroutines.
func timeLearns(ctx context.Context, client *http.Client, url string, writers, n int, body func(int) ([]byte, error), label string) (LearnRun, error) {
	if label == "" {
		label = fmt.Sprintf("learns from %d writers", writers)
	}
	bar := phaseProgress(ctx, n, label, "learns")
	defer bar.End()
	lat := make([]time.Duration, n)
	var (
		next             atomic.Int64
		merged, timedOut atomic.Int64
		firstErr         error
		once             sync.Once
		wg               sync.WaitGroup
	)
	begin := time.Now()
	for range writers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				b, err := body(i)
				if err == nil {
					var stored, m bool
					lat[i], stored, m, err = postLearn(ctx, client, url, b)
					if !stored {
						timedOut.Add(1)
					}
					if m {
						merged.Add(1)
					}
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				bar.Add(1)
			}
		})
	}
	wg.Wait()
	took := time.Since(begin)
	if firstErr != nil {
		return LearnRun{}, firstErr
	}
	sortDurations(lat)
	return LearnRun{Writers: writers, Learns: n, P50Ms: percentile(lat, 50), P99Ms: percentile(lat, 99), QPS: float64(n) / took.Seconds(),
		Merged: int(merged.Load()), TimedOut: int(timedOut.Load())}, nil
}
