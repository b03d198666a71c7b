package local

import (
	"errors"
	"log/slog"
	"time"

	"github.com/spf13/pflag"
)

// Config holds the local engine's settings. The defaults suit a laptop.
type Config struct {
	// CompactMinBytes is the log size below which the engine never compacts.
	CompactMinBytes int64
	// CompactRatio compacts once the log is this many times the live data, so
	// rewriting cost stays proportional to what was appended.
	CompactRatio float64
	// ApproxMinRows is how many rows a dense search must be able to return
	// before it scans an int8 copy of the vectors and re-scores the best
	// candidates exactly, instead of scanning the float32 vectors; 0 keeps
	// every search exact (and keeps no int8 copy).
	ApproxMinRows int
	// IndexMinRows is how many vectors a tenant must hold before the
	// engine trains an approximate (IVF) index for it in the background;
	// until it is ready, and for dense searches that may return fewer than
	// ApproxMinRows rows, search scans as above. 0 never indexes; so does
	// ApproxMinRows 0 (the index ranks by the int8 copy).
	IndexMinRows int
}

// DefaultConfig returns the settings used when none are given.
func DefaultConfig() Config {
	return Config{CompactMinBytes: 64 << 20, CompactRatio: 2, ApproxMinRows: 20_000, IndexMinRows: 50_000}
}

// RegisterFlags adds the settings to fs, each name prefixed with prefix.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	d := DefaultConfig()
	fs.Int64Var(&c.CompactMinBytes, prefix+"compact-min-bytes", d.CompactMinBytes,
		"log size in bytes below which the local store never compacts")
	fs.Float64Var(&c.CompactRatio, prefix+"compact-ratio", d.CompactRatio,
		"compact the local store once its log is this many times the live data")
	fs.IntVar(&c.ApproxMinRows, prefix+"approx-min-rows", d.ApproxMinRows,
		"rows a dense search must be able to return before the local store searches approximately (int8 scan, exact re-scoring); 0: always exact")
	fs.IntVar(&c.IndexMinRows, prefix+"index-min-rows", d.IndexMinRows,
		"vectors a tenant must hold before the local store trains an approximate (IVF) index for it in the background; 0: never")
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if c.CompactMinBytes <= 0 {
		return errors.New("compact-min-bytes must be positive")
	}
	if c.CompactRatio <= 0 {
		return errors.New("compact-ratio must be positive")
	}
	if c.ApproxMinRows < 0 {
		return errors.New("approx-min-rows must not be negative")
	}
	if c.IndexMinRows < 0 {
		return errors.New("index-min-rows must not be negative")
	}
	return nil
}

// Option changes how Open sets a store up.
type Option func(*options)

type options struct {
	cfg         Config
	log         *slog.Logger
	compactHook func(step string) // tests observe each compaction step on disk
	searchChunk int               // rows per parallel search chunk; tests lower it
	now         func() time.Time  // clock for the durations logged
	ivfAlways   bool              // probe a ready index whatever the filter passes; tests set it
	vecReserve  int64             // free bytes the vector cache leaves to the log; tests lower it
}

// WithConfig sets the engine's settings (validated by Open).
func WithConfig(c Config) Option { return func(o *options) { o.cfg = c } }

// WithLogger sets where recovery and compaction are logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }
