package embedder

import (
	"fmt"

	"github.com/recollect-dev/recollect/pkg/embed"
	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// NewBatchedVectorizer is a Vectorizer whose model calls go through a
// batcher configured as the embedder's (cfg.BatchSize, cfg.BatchLinger):
// concurrent callers share model calls exactly as the embedder's handlers
// do. Benchmarks use it to measure the embedder's own path without a bus
// or a store. close stops the batcher.
func NewBatchedVectorizer(model embed.Embedder, cfg Config) (v *Vectorizer, close func(), err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("batched vectorizer: %w", err)
	}
	split, err := chunk.New(cfg.Chunk)
	if err != nil {
		return nil, nil, fmt.Errorf("batched vectorizer: %w", err)
	}
	b := newBatcher(model, cfg.BatchSize, cfg.BatchLinger)
	return &Vectorizer{embed: b.EmbedAll, short: cfg.ShortContent, split: split}, b.Close, nil
}

// Texts returns what m is embedded as: one text, or its chunks' texts.
func (v *Vectorizer) Texts(m memory.Memory) []string { return embedTexts(m, v.short, v.split) }
