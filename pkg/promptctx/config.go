package promptctx

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Config of context assembly and resume.
type Config struct {
	// Budget is the context block's token budget when a request names none
	// (004: 800); MaxBudget bounds what a request may ask for.
	Budget    int
	MaxBudget int
	// BaselineImportance raises a preference to high priority, and so into
	// the baseline, from this importance up (004's "priority >= high");
	// policies and architecture are high priority by type.
	BaselineImportance float64
	// MaxBaseline bounds how many baseline memories are considered.
	MaxBaseline int
	// PerDomain and MaxContextual cap the contextual layer (000: 3 per
	// domain, 9 in all); RecallK is how many ranked results are asked of
	// the Recaller before filtering.
	PerDomain     int
	MaxContextual int
	RecallK       int
	// MinContextual is the contextual score below which a memory is not
	// injected (004: "only memories above threshold score inject").
	MinContextual float64
	// HalfLife of the decay factor (004: 90 days).
	HalfLife time.Duration
	// ScopeBoost multiplies the score of a memory whose scope globs match
	// the request's file path.
	ScopeBoost float64
	// Procedures is the size of the procedures layer (004: 3).
	Procedures int
	// MaxKnown, MaxStyle and MinConfidence shape "What You Know" (001: 0.65
	// confidence floor, style slots capped so they do not crowd facts out).
	MaxKnown      int
	MaxStyle      int
	MinConfidence float64

	// ConversationTokens, ConversationMax and ConversationMinRelevance shape
	// "From Earlier Conversations": transcript memories recall found above
	// the relevance floor, quoted under their own token budget (0 tokens:
	// the section is off).
	ConversationTokens       int
	ConversationMax          int
	ConversationMinRelevance float64

	// Resume section budgets in tokens (003: Core ~2k, Recent ~1k, Topics
	// ~300-500, Triggers ~100-200); a request's budget scales them.
	ResumeCore     int
	ResumeRecent   int
	ResumeTopics   int
	ResumeTriggers int
	// RecentEpochs is how many consolidation epochs back Recent looks
	// (003 §7); RecentWindow is how far back it looks for a tenant that
	// has had no epoch yet, or always when RecentEpochs is 0.
	RecentEpochs int
	RecentWindow time.Duration
	// CompressTimeout bounds the LLM call that compresses an over-budget
	// resume section; past it the section is truncated instead.
	CompressTimeout time.Duration
}

// RegisterFlags adds the flags of context assembly and resume.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.IntVar(&c.Budget, prefix+"context-budget", 800, "token budget of a context block when the request names none")
	fs.IntVar(&c.MaxBudget, prefix+"context-max-budget", 32000, "largest token budget a context or resume request may ask for")
	fs.Float64Var(&c.BaselineImportance, prefix+"context-baseline-importance", 0.8, "importance from which a preference is injected into every context block")
	fs.IntVar(&c.MaxBaseline, prefix+"context-max-baseline", 40, "most baseline memories considered for a context block")
	fs.IntVar(&c.PerDomain, prefix+"context-per-domain", 3, "most contextual memories per domain in a context block")
	fs.IntVar(&c.MaxContextual, prefix+"context-max-contextual", 9, "most contextual memories in a context block")
	fs.IntVar(&c.RecallK, prefix+"context-recall-k", 50, "ranked memories asked of recall before filtering the contextual layer")
	fs.Float64Var(&c.MinContextual, prefix+"context-min-score", 0.05, "contextual score below which a recalled memory is not injected")
	fs.DurationVar(&c.HalfLife, prefix+"context-half-life", 90*24*time.Hour, "half-life of a memory's decay since it was last modified or accessed")
	fs.Float64Var(&c.ScopeBoost, prefix+"context-scope-boost", 1.25, "score multiplier of memories whose scope globs match the request's file path")
	fs.IntVar(&c.Procedures, prefix+"context-procedures", 3, "most procedures and workflows in a context block")
	fs.IntVar(&c.MaxKnown, prefix+"context-max-known", 12, "most memories in the \"What You Know\" section")
	fs.IntVar(&c.MaxStyle, prefix+"context-max-style", 3, "most style observations in the \"What You Know\" section")
	fs.Float64Var(&c.MinConfidence, prefix+"context-min-confidence", 0.65, "confidence below which a memory stays out of \"What You Know\"")
	fs.IntVar(&c.ConversationTokens, prefix+"context-conversation-tokens", 200, "token budget of the \"From Earlier Conversations\" section, quoting transcript memories (0: off)")
	fs.IntVar(&c.ConversationMax, prefix+"context-conversation-max", 3, "most quoted messages in the \"From Earlier Conversations\" section")
	fs.Float64Var(&c.ConversationMinRelevance, prefix+"context-conversation-min-relevance", 0.35, "recall relevance below which a transcript memory is not quoted in a context block")
	fs.IntVar(&c.ResumeCore, prefix+"resume-core-tokens", 2000, "token budget of resume's Core section")
	fs.IntVar(&c.ResumeRecent, prefix+"resume-recent-tokens", 1000, "token budget of resume's Recent section")
	fs.IntVar(&c.ResumeTopics, prefix+"resume-topics-tokens", 400, "token budget of resume's Topics section")
	fs.IntVar(&c.ResumeTriggers, prefix+"resume-triggers-tokens", 150, "token budget of resume's Triggers line")
	fs.IntVar(&c.RecentEpochs, prefix+"resume-recent-epochs", 3, "how many consolidation epochs back resume's Recent section looks (0: resume-recent-window only)")
	fs.DurationVar(&c.RecentWindow, prefix+"resume-recent-window", 24*time.Hour, "how far back resume's Recent section looks for a tenant that has had no consolidation epoch")
	fs.DurationVar(&c.CompressTimeout, prefix+"resume-compress-timeout", 15*time.Second, "longest resume waits for the LLM to compress an over-budget section before truncating it")
}

// DefaultConfig returns the flag defaults.
func DefaultConfig() Config {
	var c Config
	c.RegisterFlags("", pflag.NewFlagSet("defaults", pflag.ContinueOnError))
	return c
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.MaxBudget < 1:
		return fmt.Errorf("context-max-budget must be positive (got %d)", c.MaxBudget)
	case c.Budget < 1 || c.Budget > c.MaxBudget:
		return fmt.Errorf("context-budget must be between 1 and context-max-budget %d (got %d)", c.MaxBudget, c.Budget)
	case c.BaselineImportance < 0 || c.BaselineImportance > 1:
		return fmt.Errorf("context-baseline-importance must be between 0 and 1 (got %g)", c.BaselineImportance)
	case c.MaxBaseline < 0 || c.MaxContextual < 0 || c.Procedures < 0 || c.MaxKnown < 0 || c.MaxStyle < 0:
		return errors.New("context-max-baseline, context-max-contextual, context-procedures, context-max-known and context-max-style must not be negative")
	case c.PerDomain < 1:
		return fmt.Errorf("context-per-domain must be at least 1 (got %d)", c.PerDomain)
	case c.RecallK < 1 || c.RecallK > 100:
		return fmt.Errorf("context-recall-k must be between 1 and 100 (got %d)", c.RecallK)
	case c.MinContextual < 0:
		return fmt.Errorf("context-min-score must not be negative (got %g)", c.MinContextual)
	case c.HalfLife <= 0:
		return errors.New("context-half-life must be positive")
	case c.ScopeBoost < 1:
		return fmt.Errorf("context-scope-boost must be at least 1 (got %g)", c.ScopeBoost)
	case c.MinConfidence < 0 || c.MinConfidence > 1:
		return fmt.Errorf("context-min-confidence must be between 0 and 1 (got %g)", c.MinConfidence)
	case c.ConversationTokens < 0 || c.ConversationMax < 0:
		return errors.New("context-conversation-tokens and context-conversation-max must not be negative")
	case c.ConversationMinRelevance < 0 || c.ConversationMinRelevance > 1:
		return fmt.Errorf("context-conversation-min-relevance must be between 0 and 1 (got %g)", c.ConversationMinRelevance)
	case c.ResumeCore < 0 || c.ResumeRecent < 0 || c.ResumeTopics < 0 || c.ResumeTriggers < 0:
		return errors.New("resume section budgets must not be negative")
	case c.resumeBudget() < 1 || c.resumeBudget() > c.MaxBudget:
		return fmt.Errorf("resume section budgets must add up to between 1 and context-max-budget %d (got %d)", c.MaxBudget, c.resumeBudget())
	case c.RecentWindow <= 0:
		return errors.New("resume-recent-window must be positive")
	case c.RecentEpochs < 0:
		return fmt.Errorf("resume-recent-epochs must not be negative (got %d)", c.RecentEpochs)
	case c.CompressTimeout <= 0:
		return errors.New("resume-compress-timeout must be positive")
	}
	return nil
}

// resumeBudget is resume's default total: the sum of its sections.
func (c *Config) resumeBudget() int {
	return c.ResumeCore + c.ResumeRecent + c.ResumeTopics + c.ResumeTriggers
}
