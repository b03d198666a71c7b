package usage

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Config holds the buffer settings operators may tune; zero fields take the
// defaults.
type Config struct {
	BufferSize    int
	BatchSize     int
	FlushInterval time.Duration
}

// RegisterFlags registers --<prefix>usage-buffer-size, --<prefix>usage-batch-size
// and --<prefix>usage-flush-interval.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.BufferSize, prefix+"usage-buffer-size", DefaultCapacity,
		"model-usage records held while the usage backend is slow or down; beyond it records are dropped and counted")
	fs.IntVar(&c.BatchSize, prefix+"usage-batch-size", DefaultBatchSize,
		"most model-usage records written to the backend at once")
	fs.DurationVar(&c.FlushInterval, prefix+"usage-flush-interval", DefaultFlushInterval,
		"how often buffered model-usage records are written")
}

// Validate checks the settings.
func (c *Config) Validate() error {
	var errs []error
	if c.BufferSize < 0 {
		errs = append(errs, fmt.Errorf("usage-buffer-size %d: must not be negative", c.BufferSize))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("usage-batch-size %d: must not be negative", c.BatchSize))
	}
	if c.FlushInterval < 0 {
		errs = append(errs, fmt.Errorf("usage-flush-interval %s: must not be negative", c.FlushInterval))
	}
	if c.BufferSize > 0 && c.BatchSize > c.BufferSize {
		errs = append(errs, fmt.Errorf("usage-batch-size %d exceeds usage-buffer-size %d", c.BatchSize, c.BufferSize))
	}
	return errors.Join(errs...)
}

// Options turns the settings into options for NewBuffered.
func (c Config) Options() []Option {
	return []Option{WithCapacity(c.BufferSize), WithBatchSize(c.BatchSize), WithFlushInterval(c.FlushInterval)}
}
