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
	// Prices is the price table as --usage-prices reads it; empty means
	// no model has a known cost.
	Prices string
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
	RegisterPricesFlag(&c.Prices, prefix, fs)
}

// RegisterPricesFlag registers --<prefix>usage-prices into dst.
func RegisterPricesFlag(dst *string, prefix string, fs *pflag.FlagSet) {
	fs.StringVar(dst, prefix+PricesFlag, *dst,
		"model prices in USD per million input/output tokens, as model=input/output,... "+
			"(e.g. gpt-4o-mini=0.15/0.60,text-embedding-3-small=0.02/0); the built-in embedding model costs 0; "+
			"feeds recollect_model_cost_usd_total and the cost column of recollect usage")
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
	if _, err := ParsePrices(c.Prices); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// PriceTable is the parsed --usage-prices; Validate has reported its errors.
func (c Config) PriceTable() (Prices, error) {
	return ParsePrices(c.Prices)
}

// Options turns the settings into options for NewBuffered.
func (c Config) Options() []Option {
	return []Option{WithCapacity(c.BufferSize), WithBatchSize(c.BatchSize), WithFlushInterval(c.FlushInterval)}
}
