package recall

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Config of recall ranking.
type Config struct {
	PerDomain    int
	MaxResults   int
	MinRelevance float64
	Candidates   int

	// The LLM steps of 003 §4.4 and §4.5; without an LLM they do nothing.
	// Zero values take the defaults below, so a Config literal stays valid.

	// AutoExpandBelow is the best first-pass relevance under which a
	// request that does not say expands anyway; negative: never.
	AutoExpandBelow float64
	// Expansions bounds the alternative phrasings asked for and used.
	Expansions int
	// ExpandTimeout bounds the expansion call.
	ExpandTimeout time.Duration
	// Rerank reranks requests that do not say.
	Rerank bool
	// RerankTop is how many of the best candidates the LLM reorders.
	RerankTop int
	// RerankWeight is the LLM's share of a reranked score (see blend).
	RerankWeight float64
	// RerankTimeout bounds the rerank call.
	RerankTimeout time.Duration

	// NoTimeChannel turns the time channel off (timechannel.go): dated
	// questions then rank only what the other two channels find.
	NoTimeChannel bool
	// NoAliases turns the alias expansion off (aliases.go): the lexical
	// channel then searches the query's own words only.
	NoAliases bool
	// NoEntitySplit turns off the per-entity searches and the top-k cover
	// of a query naming several entities (entities.go).
	NoEntitySplit bool
	// NoEntityCover keeps the per-entity searches but not the top-k cover.
	NoEntityCover bool
}

// Defaults of the LLM steps.
const (
	DefaultAutoExpandBelow = 0.25 // 003's AUTO_EXPAND_THRESHOLD
	DefaultExpansions      = 5    // 003 asks for 4-6 phrases
	DefaultExpandTimeout   = 3 * time.Second
	DefaultRerankTop       = 20
	DefaultRerankWeight    = 0.5
	DefaultRerankTimeout   = 5 * time.Second

	maxExpansions = 8
	maxRerankTop  = 50
)

// RegisterFlags adds the recall flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.PerDomain, prefix+"recall-per-domain", 3, "memories recalled per domain")
	fs.IntVar(&c.MaxResults, prefix+"recall-max", 9, "memories recalled in all")
	fs.Float64Var(&c.MinRelevance, prefix+"recall-min-relevance", 0.15, "fused relevance (semantic and lexical) below which a memory is not recalled")
	fs.IntVar(&c.Candidates, prefix+"recall-candidates", 200, "memories each channel (dense, lexical) contributes before ranking")
	fs.Float64Var(&c.AutoExpandBelow, prefix+"recall-auto-expand-below", DefaultAutoExpandBelow,
		"with an LLM, expand the query unasked when the best first-pass relevance is below this (negative: never)")
	fs.IntVar(&c.Expansions, prefix+"recall-expansions", DefaultExpansions, "alternative phrasings a query expansion asks the LLM for")
	fs.DurationVar(&c.ExpandTimeout, prefix+"recall-expand-timeout", DefaultExpandTimeout, "bound on the query expansion call; past it recall answers with the first pass")
	fs.BoolVar(&c.Rerank, prefix+"recall-rerank", false, "with an LLM, rerank every recall that does not say otherwise")
	fs.IntVar(&c.RerankTop, prefix+"recall-rerank-top", DefaultRerankTop, "best candidates the LLM reranks")
	fs.Float64Var(&c.RerankWeight, prefix+"recall-rerank-weight", DefaultRerankWeight, "share of the LLM's judgement in a reranked score (the rest is the fused score)")
	fs.DurationVar(&c.RerankTimeout, prefix+"recall-rerank-timeout", DefaultRerankTimeout, "bound on the rerank call; past it recall keeps the fused order")
	fs.BoolVar(&c.NoTimeChannel, prefix+"recall-no-time-channel", false,
		"do not fetch, for a question naming a date or a window of at most 31 days, the memories the time index holds under it")
	fs.BoolVar(&c.NoAliases, prefix+"recall-no-aliases", false,
		"do not add to a query's lexical terms the names and describing words of the subject's aliases it touches")
	fs.BoolVar(&c.NoEntitySplit, prefix+"recall-no-entity-split", false,
		"do not search each entity a query names on its own, nor make sure each has a result in the top k")
	fs.BoolVar(&c.NoEntityCover, prefix+"recall-no-entity-cover", false,
		"search each entity a query names on its own, but do not make sure each has a result in the top k")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.PerDomain < 1:
		return fmt.Errorf("recall-per-domain must be at least 1 (got %d)", c.PerDomain)
	case c.MaxResults < 1 || c.MaxResults > 100:
		return fmt.Errorf("recall-max must be between 1 and 100 (got %d)", c.MaxResults)
	case c.MinRelevance < -1 || c.MinRelevance > 1:
		return fmt.Errorf("recall-min-relevance must be between -1 and 1 (got %g)", c.MinRelevance)
	case c.Candidates < c.MaxResults:
		return fmt.Errorf("recall-candidates must be at least recall-max (%d)", c.MaxResults)
	case c.AutoExpandBelow > 1:
		return fmt.Errorf("recall-auto-expand-below must be at most 1 (got %g)", c.AutoExpandBelow)
	case c.Expansions < 0 || c.Expansions > maxExpansions:
		return fmt.Errorf("recall-expansions must be between 1 and %d (got %d)", maxExpansions, c.Expansions)
	case c.ExpandTimeout < 0:
		return fmt.Errorf("recall-expand-timeout must not be negative (got %s)", c.ExpandTimeout)
	case c.RerankTop < 0 || c.RerankTop > maxRerankTop:
		return fmt.Errorf("recall-rerank-top must be between 1 and %d (got %d)", maxRerankTop, c.RerankTop)
	case c.RerankWeight < 0 || c.RerankWeight > 1:
		return fmt.Errorf("recall-rerank-weight must be between 0 and 1 (got %g)", c.RerankWeight)
	case c.RerankTimeout < 0:
		return fmt.Errorf("recall-rerank-timeout must not be negative (got %s)", c.RerankTimeout)
	}
	return nil
}

// withDefaults fills the zero LLM-step settings.
func (c Config) withDefaults() Config {
	if c.AutoExpandBelow == 0 {
		c.AutoExpandBelow = DefaultAutoExpandBelow
	}
	if c.Expansions == 0 {
		c.Expansions = DefaultExpansions
	}
	if c.ExpandTimeout == 0 {
		c.ExpandTimeout = DefaultExpandTimeout
	}
	if c.RerankTop == 0 {
		c.RerankTop = DefaultRerankTop
	}
	if c.RerankWeight == 0 {
		c.RerankWeight = DefaultRerankWeight
	}
	if c.RerankTimeout == 0 {
		c.RerankTimeout = DefaultRerankTimeout
	}
	return c
}
