package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/cputime"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// LongEmbedResult is the long-content phase of bench embed: code-heavy
// messages of 1 to 8 KB, chunked as the embedder chunks them for a
// memory's ChunkVectors, embedded through the embedder's batcher by as many
// concurrent callers as it has handlers.
type LongEmbedResult struct {
	Messages        int     `json:"messages"`
	Chunks          int     `json:"chunks"`
	BytesPerMessage float64 `json:"bytes_per_message"`
	TokensPerChunk  float64 `json:"tokens_per_chunk"` // as the model reads them (at most 256)
	Callers         int     `json:"callers"`          // concurrent memories, as the embedder's handlers
	// TokensPerSec is through the embedder's path (chunking, the batcher,
	// the model, averaging into the memory's vector); KernelTokensPerSec
	// the same chunks given to the model directly in batches of the
	// embedder's batch size, one call after another.
	TokensPerSec       float64 `json:"tokens_per_sec"`
	KernelTokensPerSec float64 `json:"kernel_tokens_per_sec"`
	MessagesPerSec     float64 `json:"messages_per_sec"`
	// ShortTokensPerSec is the short-sentence batch's throughput in
	// tokens, timed in the same rounds as the long messages; Ratio is
	// TokensPerSec over it (issue 14's target: at least 0.7).
	ShortTokensPerSec float64 `json:"short_tokens_per_sec"`
	Ratio             float64 `json:"ratio"`
	// The same per second of the process's CPU time (0 where unknown):
	// on a shared machine, where other jobs take cores away, these
	// compare the work itself.
	TokensPerCPUSec       float64 `json:"tokens_per_cpu_sec"`
	KernelTokensPerCPUSec float64 `json:"kernel_tokens_per_cpu_sec"`
	ShortTokensPerCPUSec  float64 `json:"short_tokens_per_cpu_sec"`
	CPURatio              float64 `json:"cpu_ratio"`
}

// perCPUSecond is n per second of cpu (0 when cpu is unknown).
func perCPUSecond(n float64, cpu time.Duration) float64 {
	if cpu <= 0 {
		return 0
	}
	return n / cpu.Seconds()
}

// DefaultEmbedderConfig is the embedder's configuration with every flag at
// its default.
func DefaultEmbedderConfig(m *minilm.Model) embedder.Config {
	var cfg embedder.Config
	cfg.RegisterFlags("", pflag.NewFlagSet("embedder", pflag.ContinueOnError))
	cfg.Chunk.Fits = m.Fits // as the app sets it for the built-in model
	return cfg
}

// longMemory is message i as the memory the embedder would store.
func longMemory(i int) memory.Memory {
	return memory.Memory{Tenant: "bench", ID: fmt.Sprintf("long-%d", i), Content: LongMessage(i)}
}

// longRounds is how many rounds the long phase takes: each embeds a
// share of the messages through the embedder, the same chunks straight
// through the model and the short batch, so that on a shared machine the
// three see the same load and their ratios mean something.
const longRounds = 5

// shortPerRound is how many short batches each round times.
const shortPerRound = 3

// rate accumulates work and the wall and CPU time it took.
type rate struct {
	n         float64
	wall, cpu time.Duration
}

func (r *rate) time(n int, f func() error) error {
	begin, cpu0 := time.Now(), cputime.Process()
	err := f()
	r.wall += time.Since(begin)
	r.cpu += cputime.Process() - cpu0
	r.n += float64(n)
	return err
}

func (r rate) perSec() float64    { return r.n / r.wall.Seconds() }
func (r rate) perCPUSec() float64 { return perCPUSecond(r.n, r.cpu) }

// benchEmbedLong embeds n long messages through the embedder's path and
// their chunks through the model directly, in rounds alternating with the
// short batch short (of shortTokens tokens).
func benchEmbedLong(ctx context.Context, m *minilm.Model, n int, short []string, shortTokens int) (LongEmbedResult, error) {
	cfg := DefaultEmbedderConfig(m)
	v, closeV, err := embedder.NewBatchedVectorizer(m, cfg)
	if err != nil {
		return LongEmbedResult{}, err
	}
	defer closeV()
	mems := make([]memory.Memory, n)
	texts := make([][]string, n)
	tokens := make([]int, n)
	chunks, bytes, allTokens := 0, 0, 0
	for i := range mems {
		mems[i] = longMemory(i)
		bytes += len(mems[i].Content)
		texts[i] = v.Texts(mems[i])
		for _, t := range texts[i] {
			tokens[i] += m.Tokens(t)
		}
		chunks += len(texts[i])
		allTokens += tokens[i]
	}
	res := LongEmbedResult{Messages: n, Chunks: chunks, BytesPerMessage: float64(bytes) / float64(n),
		TokensPerChunk: float64(allTokens) / float64(chunks), Callers: cfg.Concurrency}

	// Warm the workspaces at this size.
	if _, err := v.Embeddings(ctx, mems[:1]); err != nil {
		return LongEmbedResult{}, fmt.Errorf("embed warm-up message: %w", err)
	}
	bar := phaseProgress(ctx, n, "embedding long messages", "messages")
	defer bar.End()
	var path, kernel, shortRate rate
	for r := range longRounds {
		lo, hi := r*n/longRounds, (r+1)*n/longRounds
		if lo == hi {
			continue
		}
		err := shortRate.time(shortPerRound*shortTokens, func() error {
			for range shortPerRound {
				if _, err := m.Embed(ctx, short); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return LongEmbedResult{}, fmt.Errorf("embed short batch: %w", err)
		}
		group := 0
		for i := lo; i < hi; i++ {
			group += tokens[i]
		}
		if err := path.time(group, func() error { return embedConcurrently(ctx, v, mems[lo:hi], cfg.Concurrency, bar) }); err != nil {
			return LongEmbedResult{}, err
		}
		var batch []string
		flush := func() error {
			_, err := m.Embed(ctx, batch)
			batch = batch[:0]
			return err
		}
		err = kernel.time(group, func() error {
			for i := lo; i < hi; i++ {
				for _, t := range texts[i] {
					if batch = append(batch, t); len(batch) == cfg.BatchSize {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
			if len(batch) > 0 {
				return flush()
			}
			return nil
		})
		if err != nil {
			return LongEmbedResult{}, fmt.Errorf("embed long chunks: %w", err)
		}
	}
	res.TokensPerSec, res.TokensPerCPUSec = path.perSec(), path.perCPUSec()
	res.MessagesPerSec = float64(n) / path.wall.Seconds()
	res.KernelTokensPerSec, res.KernelTokensPerCPUSec = kernel.perSec(), kernel.perCPUSec()
	res.ShortTokensPerSec, res.ShortTokensPerCPUSec = shortRate.perSec(), shortRate.perCPUSec()
	res.Ratio = res.TokensPerSec / res.ShortTokensPerSec
	if res.ShortTokensPerCPUSec > 0 {
		res.CPURatio = res.TokensPerCPUSec / res.ShortTokensPerCPUSec
	}
	return res, nil
}

// embedConcurrently embeds mems one memory per call from callers
// goroutines, as the embedder's handlers do.
func embedConcurrently(ctx context.Context, v *embedder.Vectorizer, mems []memory.Memory, callers int, bar Bar) error {
	var (
		next     atomic.Int64
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	for range callers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(mems) {
					return
				}
				if _, err := v.Embeddings(ctx, mems[i:i+1]); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("embed long message %s: %w", mems[i].ID, err) })
					return
				}
				bar.Add(1)
			}
		})
	}
	wg.Wait()
	return firstErr
}
