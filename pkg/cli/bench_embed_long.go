package cli

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

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
	// tokens (sentences_per_sec × tokens_per_sentence), Ratio
	// TokensPerSec over it (issue 14's target: at least 0.7).
	ShortTokensPerSec float64 `json:"short_tokens_per_sec"`
	Ratio             float64 `json:"ratio"`
	// The same per second of the process's CPU time (0 where unknown):
	// on a shared machine, where other jobs take cores away, these
	// compare the work itself.
	TokensPerCPUSec       float64 `json:"tokens_per_cpu_sec"`
	KernelTokensPerCPUSec float64 `json:"kernel_tokens_per_cpu_sec"`
	CPURatio              float64 `json:"cpu_ratio"`
}

// perCPUSecond is n per second of cpu (0 when cpu is unknown).
func perCPUSecond(n float64, cpu time.Duration) float64 {
	if cpu <= 0 {
		return 0
	}
	return n / cpu.Seconds()
}

// defaultEmbedderConfig is the embedder's configuration with every flag at
// its default.
func defaultEmbedderConfig() embedder.Config {
	var cfg embedder.Config
	cfg.RegisterFlags("", pflag.NewFlagSet("embedder", pflag.ContinueOnError))
	return cfg
}

// longMemory is message i as the memory the embedder would store.
func longMemory(i int) memory.Memory {
	return memory.Memory{Tenant: "bench", ID: fmt.Sprintf("long-%d", i), Content: longMessage(i)}
}

// benchEmbedLong embeds n long messages through the embedder's path, then
// their chunks through the model directly.
func benchEmbedLong(ctx context.Context, m *minilm.Model, n int) (LongEmbedResult, error) {
	cfg := defaultEmbedderConfig()
	v, closeV, err := embedder.NewBatchedVectorizer(m, cfg)
	if err != nil {
		return LongEmbedResult{}, err
	}
	defer closeV()
	mems := make([]memory.Memory, n)
	var texts []string
	tokens, bytes := 0, 0
	for i := range mems {
		mems[i] = longMemory(i)
		bytes += len(mems[i].Content)
		for _, t := range v.Texts(mems[i]) {
			texts = append(texts, t)
			tokens += m.Tokens(t)
		}
	}
	res := LongEmbedResult{Messages: n, Chunks: len(texts), BytesPerMessage: float64(bytes) / float64(n),
		TokensPerChunk: float64(tokens) / float64(len(texts)), Callers: cfg.Concurrency}

	// Warm the workspaces at this size.
	if _, err := v.Embeddings(ctx, mems[:1]); err != nil {
		return LongEmbedResult{}, fmt.Errorf("embed warm-up message: %w", err)
	}
	bar := phaseProgress(ctx, n, "embedding long messages", "messages")
	var (
		next     atomic.Int64
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	begin, cpu0 := time.Now(), processCPU()
	for range cfg.Concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if _, err := v.Embeddings(ctx, mems[i:i+1]); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("embed long message %d: %w", i, err) })
					return
				}
				bar.Add(1)
			}
		})
	}
	wg.Wait()
	took, cpu := time.Since(begin), processCPU()-cpu0
	bar.End()
	if firstErr != nil {
		return LongEmbedResult{}, firstErr
	}
	res.TokensPerSec = float64(tokens) / took.Seconds()
	res.MessagesPerSec = float64(n) / took.Seconds()
	res.TokensPerCPUSec = perCPUSecond(float64(tokens), cpu)

	bar = phaseProgress(ctx, len(texts), "embedding long chunks directly", "chunks")
	begin, cpu0 = time.Now(), processCPU()
	for start := 0; start < len(texts); start += cfg.BatchSize {
		batch := texts[start:min(start+cfg.BatchSize, len(texts))]
		if _, err := m.Embed(ctx, batch); err != nil {
			bar.End()
			return LongEmbedResult{}, fmt.Errorf("embed long chunks: %w", err)
		}
		bar.Add(len(batch))
	}
	res.KernelTokensPerSec = float64(tokens) / time.Since(begin).Seconds()
	res.KernelTokensPerCPUSec = perCPUSecond(float64(tokens), processCPU()-cpu0)
	bar.End()
	return res, nil
}
