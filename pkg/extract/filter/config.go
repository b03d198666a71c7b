package filter

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Defaults.
const (
	DefaultMaxContentChars  = 500
	DefaultMaxEvidenceChars = 1000
	DefaultMinOverlap       = 0.45 // Clanker's isTextGroundedInSource threshold
	DefaultShortFactWords   = 3
)

// Config holds the filter's settings.
type Config struct {
	MaxContentChars  int     // longer facts are rejected (characters, after cleaning)
	MaxEvidenceChars int     // longer evidence is cut at a word boundary
	MinOverlap       float64 // share of a fact's words the source must hold
	ShortFactWords   int     // facts with at most this many words need all of them in the source
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		MaxContentChars:  DefaultMaxContentChars,
		MaxEvidenceChars: DefaultMaxEvidenceChars,
		MinOverlap:       DefaultMinOverlap,
		ShortFactWords:   DefaultShortFactWords,
	}
}

// RegisterFlags adds the filter flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.MaxContentChars, prefix+"filter-max-content-chars", DefaultMaxContentChars,
		"longest extracted fact kept, in characters")
	fs.IntVar(&c.MaxEvidenceChars, prefix+"filter-max-evidence-chars", DefaultMaxEvidenceChars,
		"longest evidence kept with a fact; longer evidence is cut")
	fs.Float64Var(&c.MinOverlap, prefix+"filter-min-overlap", DefaultMinOverlap,
		"share of a fact's content words that must occur in the conversation")
	fs.IntVar(&c.ShortFactWords, prefix+"filter-short-fact-words", DefaultShortFactWords,
		"facts with at most this many content words need every one of them in the conversation")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.MaxContentChars < 1:
		return fmt.Errorf("filter-max-content-chars must be at least 1 (got %d)", c.MaxContentChars)
	case c.MaxEvidenceChars < 1:
		return fmt.Errorf("filter-max-evidence-chars must be at least 1 (got %d)", c.MaxEvidenceChars)
	case !(c.MinOverlap > 0 && c.MinOverlap <= 1):
		return fmt.Errorf("filter-min-overlap must be in (0, 1] (got %g)", c.MinOverlap)
	case c.ShortFactWords < 0:
		return fmt.Errorf("filter-short-fact-words must not be negative (got %d)", c.ShortFactWords)
	}
	return nil
}
