package chunk

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Nebo's limits: about 400 tokens per chunk and 80 tokens of overlap.
const (
	DefaultMaxChars     = 1600
	DefaultOverlapChars = 320
)

// Config holds the chunk limits, in characters.
type Config struct {
	MaxChars     int
	OverlapChars int
	// Fits, if set, reports whether the model reads a text whole (no
	// truncation); a chunk it does not fit is split further until each
	// piece does, so no part of the content is cut off unembedded. Set by
	// the program from the model (the built-in one reads 256 tokens: about
	// 700 characters of code), never a flag.
	Fits func(text string) bool
}

// DefaultConfig returns the default limits.
func DefaultConfig() Config {
	return Config{MaxChars: DefaultMaxChars, OverlapChars: DefaultOverlapChars}
}

// RegisterFlags registers --<prefix>chunk-max-chars and
// --<prefix>chunk-overlap-chars.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.MaxChars, prefix+"chunk-max-chars", DefaultMaxChars,
		"longest chunk, in characters, that long content is split into before embedding")
	fs.IntVar(&c.OverlapChars, prefix+"chunk-overlap-chars", DefaultOverlapChars,
		"most characters (whole sentences) a chunk repeats from the end of the previous one")
}

// Validate checks 0 <= OverlapChars < MaxChars.
func (c *Config) Validate() error {
	switch {
	case c.MaxChars < 1:
		return fmt.Errorf("chunk-max-chars must be at least 1 (got %d)", c.MaxChars)
	case c.OverlapChars < 0:
		return fmt.Errorf("chunk-overlap-chars must not be negative (got %d)", c.OverlapChars)
	case c.OverlapChars >= c.MaxChars:
		return fmt.Errorf("chunk-overlap-chars %d must be less than chunk-max-chars %d", c.OverlapChars, c.MaxChars)
	}
	return nil
}
