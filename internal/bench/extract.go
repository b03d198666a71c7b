package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/extract"
)

// ExtractResult is what `recollect bench extract --json` prints.
type ExtractResult struct {
	Conversations       int           `json:"conversations"`
	TurnsPerConv        int           `json:"turns_per_conversation"`
	Workers             int           `json:"workers"`
	TurnsPerSec         float64       `json:"turns_per_sec"`         // rule capture and filters, in memory
	ConversationsPerSec float64       `json:"conversations_per_sec"` // the same, per conversation
	FactsPerTurn        float64       `json:"facts_per_turn"`        // facts kept
	HandledTurnsPerSec  float64       `json:"handled_turns_per_sec"` // through the handler with JetStream publishing
	HandledTurns        int           `json:"handled_turns"`         // turns sent through the handler
	LLM                 []LLMOverhead `json:"llm"`
	// The fields every bench command has: P50Ms and P99Ms are the overhead
	// of one LLM extraction against the first --model-delay (0 when
	// skipped), QPS the turns per second of rule capture and the filters,
	// Memories the facts they kept.
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	QPS        float64 `json:"qps"`
	Memories   int     `json:"memories"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	CPUs       int     `json:"cpus"`
	// Machine is where it ran: CPU, cores, Go version and the load at the end.
	Machine Machine `json:"machine"`
}

// BenchExtract measures the extractor in this process.
func BenchExtract(ctx context.Context, convs, turns, handled, extractions int, delays []time.Duration) (ExtractResult, error) {
	if convs < 1 || turns < 1 {
		return ExtractResult{}, fmt.Errorf("need at least one conversation of one turn")
	}
	res := ExtractResult{Conversations: convs, TurnsPerConv: turns, Workers: runtime.GOMAXPROCS(0),
		GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}
	if err := benchCapture(convs, turns, &res); err != nil {
		return res, err
	}
	if handled > 0 {
		if err := benchHandle(ctx, handled, &res); err != nil {
			return res, err
		}
	}
	if extractions > 0 {
		for _, d := range delays {
			l, err := benchLLMOverhead(ctx, d, extractions)
			if err != nil {
				return res, err
			}
			res.LLM = append(res.LLM, l)
		}
		res.P50Ms, res.P99Ms = res.LLM[0].OverheadP50Ms, res.LLM[0].OverheadP99Ms
	}
	return res, nil
}

// benchCapture runs every turn through rule capture and the filters, one
// worker per core, conversations shared out between them.
func benchCapture(convs, turns int, res *ExtractResult) error {
	x, err := extract.New(extract.DefaultConfig(), nil, nil, nil, time.Now)
	if err != nil {
		return err
	}
	data := benchConversations(convs, turns, 1)
	var next, facts atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range res.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for {
				c := int(next.Add(1) - 1)
				if c >= len(data) {
					break
				}
				for i := range data[c] {
					e := data[c][i] // a copy: Capture reads it, Normalize is the handler's job
					n += len(x.Capture(&e))
				}
			}
			facts.Add(int64(n))
		}()
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	res.TurnsPerSec = float64(convs*turns) / took
	res.ConversationsPerSec = float64(convs) / took
	res.FactsPerTurn = float64(facts.Load()) / float64(convs*turns)
	res.QPS, res.Memories = res.TurnsPerSec, int(facts.Load())
	return nil
}

// benchHandle sends turns through the handler as the consumer would, with
// the consumer's default concurrency, publishing facts to an embedded
// JetStream in a temporary directory.
func benchHandle(ctx context.Context, n int, res *ExtractResult) error {
	dir, err := os.MkdirTemp("", "recollect-bench-extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, MaxBytes: 8 << 30}, log)
	if err != nil {
		return err
	}
	defer b.Close()
	cfg := extract.DefaultConfig()
	x, err := extract.New(cfg, b, prometheus.NewRegistry(), log, time.Now)
	if err != nil {
		return err
	}
	var payloads [][]byte
	for _, conv := range benchConversations((n+9)/10, 10, 2) {
		for i := range conv {
			if len(payloads) == n {
				break
			}
			data, err := json.Marshal(&conv[i])
			if err != nil {
				return err
			}
			payloads = append(payloads, data)
		}
	}
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	bar := phaseProgress(ctx, len(payloads), "handling turns", "turns")
	defer bar.End()
	start := time.Now()
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(payloads) {
					return
				}
				d := &bus.Delivery{Subject: bus.ConvSubject("bench"), Data: payloads[i], NumDelivered: 1}
				if err := x.Handle(ctx, d); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				bar.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	res.HandledTurns = len(payloads)
	res.HandledTurnsPerSec = float64(len(payloads)) / time.Since(start).Seconds()
	return nil
}
