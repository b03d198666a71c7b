package embedder

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/embed/chunk"
)

// Config of the embedder module.
type Config struct {
	Concurrency    int
	BatchSize      int
	BatchLinger    time.Duration
	HandlerTimeout time.Duration
	MaxDeliver     int
	ShortContent   int

	// Dedup: see classify for how the three thresholds combine.
	DedupThreshold  float64 // cosine at or above which a near duplicate reinforces
	DedupJaccard    float64 // token-set Jaccard a near duplicate must exceed
	DedupCandidates int     // dense hits compared per new fact
	MergeThreshold  float64 // cosine at or above which the LLM judges a merge

	// Chunk splits content too long for one model input (1600/320).
	Chunk chunk.Config

	ReindexBatch   int           // memories re-embedded per store write
	ReindexTimeout time.Duration // time limit of one reindex delivery
}

// RegisterFlags adds the embedder flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.Concurrency, prefix+"embedder-concurrency", 32, "facts handled at once (they share model batches)")
	fs.IntVar(&c.BatchSize, prefix+"embedder-batch-size", 32, "most texts in one model call")
	fs.DurationVar(&c.BatchLinger, prefix+"embedder-batch-linger", 0, "how long a model batch waits to fill; 0 batches what arrives while the model is busy, adding no wait")
	fs.Float64Var(&c.DedupThreshold, prefix+"dedup-threshold", 0.92, "cosine similarity at or above which a new fact reinforces an existing memory instead of being inserted (the pair must also pass --"+prefix+"dedup-jaccard)")
	fs.Float64Var(&c.DedupJaccard, prefix+"dedup-jaccard", 0.5, "token-set Jaccard similarity of the normalised contents that a near duplicate must exceed before its cosine counts (0: any shared term)")
	fs.IntVar(&c.DedupCandidates, prefix+"dedup-candidates", 5, "nearest memories compared with each new fact for dedup and insert-merge")
	fs.Float64Var(&c.MergeThreshold, prefix+"insert-merge-threshold", 0.80, "with an LLM, cosine similarity at or above which a new fact that is not a near duplicate is sent with its best match to the LLM to be merged into it")
	fs.DurationVar(&c.HandlerTimeout, prefix+"embedder-timeout", 60*time.Second, "time limit for storing one fact")
	fs.IntVar(&c.MaxDeliver, prefix+"embedder-max-deliver", 10, "deliveries of one fact before it is dead-lettered")
	fs.IntVar(&c.ShortContent, prefix+"embedder-short-content", 300, "memories up to this many characters are embedded as \"key: content\"")
	c.Chunk.RegisterFlags(prefix+"embedder-", fs)
	fs.IntVar(&c.ReindexBatch, prefix+"reindex-batch", 64, "memories re-embedded and written at once by a reindex")
	fs.DurationVar(&c.ReindexTimeout, prefix+"reindex-timeout", 30*time.Minute, "time limit of one reindex run; an unfinished run is redelivered and continues")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Concurrency < 1:
		return fmt.Errorf("embedder-concurrency must be at least 1 (got %d)", c.Concurrency)
	case c.BatchSize < 1:
		return fmt.Errorf("embedder-batch-size must be at least 1 (got %d)", c.BatchSize)
	case c.BatchLinger < 0:
		return fmt.Errorf("embedder-batch-linger must not be negative (got %s)", c.BatchLinger)
	case c.DedupThreshold <= 0 || c.DedupThreshold > 1:
		return fmt.Errorf("dedup-threshold must be in (0, 1] (got %g)", c.DedupThreshold)
	case c.DedupJaccard < 0 || c.DedupJaccard >= 1:
		return fmt.Errorf("dedup-jaccard must be in [0, 1) (got %g)", c.DedupJaccard)
	case c.DedupCandidates < 1:
		return fmt.Errorf("dedup-candidates must be at least 1 (got %d)", c.DedupCandidates)
	case c.MergeThreshold <= 0 || c.MergeThreshold > c.DedupThreshold:
		return fmt.Errorf("insert-merge-threshold must be in (0, dedup-threshold %g] (got %g)", c.DedupThreshold, c.MergeThreshold)
	case c.HandlerTimeout <= 0:
		return errors.New("embedder-timeout must be positive")
	case c.MaxDeliver < 1:
		return fmt.Errorf("embedder-max-deliver must be at least 1 (got %d)", c.MaxDeliver)
	case c.ReindexBatch < 1:
		return fmt.Errorf("reindex-batch must be at least 1 (got %d)", c.ReindexBatch)
	case c.ReindexTimeout <= 0:
		return errors.New("reindex-timeout must be positive")
	}
	if err := c.Chunk.Validate(); err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	return nil
}
