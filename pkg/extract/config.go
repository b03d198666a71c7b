package extract

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/embed/chunk"
	"github.com/recollect-dev/recollect/pkg/extract/filter"
)

// Config of the extractor module.
type Config struct {
	Concurrency    int
	HandlerTimeout time.Duration
	MaxDeliver     int

	// Per-turn extraction (001): Debounce after a session's last turn,
	// over its last TurnWindow messages plus any not extracted yet.
	Debounce           time.Duration
	TurnWindow         int
	MaxPendingTurns    int           // a session with this many unextracted turns is extracted at once
	ExtractTimeout     time.Duration // one session's extraction, model calls included
	LeaseTTL           time.Duration // the per-session lease, renewed while extracting
	FailoverDelay      time.Duration // how long other replicas wait before taking over a session
	SessionTTL         time.Duration // session buffers idle this long are forgotten
	MaxAttempts        int           // extractions of a window when the model is unavailable
	SessionConcurrency int           // sessions extracted at once by this process

	// Model input and output.
	MaxMessageChars      int
	MaxConversationChars int
	MaxWindows           int // windows of MaxConversationChars a compaction or session end is cut into
	MaxFacts             int // facts asked for per call
	MaxTokens            int
	Temperature          float64 // negative: the server's default

	// Transcripts keeps every conversation message as its own episodic
	// transcript memory (001 §11, at turn granularity).
	Transcripts bool

	// Styles and the personality directive (001).
	Personality          bool
	MinStyleObservations int

	Filter filter.Config
}

// Defaults.
const (
	DefaultDebounce   = 5 * time.Second
	DefaultTurnWindow = 6
	DefaultMinStyles  = 3
)

// RegisterFlags adds the extractor flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	p := prefix + "extractor-"
	fs.IntVar(&c.Concurrency, p+"concurrency", 8, "conversation events handled at once")
	fs.DurationVar(&c.HandlerTimeout, p+"timeout", 60*time.Second, "time limit for extracting one event")
	fs.IntVar(&c.MaxDeliver, p+"max-deliver", 10, "deliveries of one event before it is dead-lettered")

	fs.DurationVar(&c.Debounce, p+"debounce", DefaultDebounce, "LLM extraction of a session runs this long after its last turn")
	fs.IntVar(&c.TurnWindow, p+"turn-window", DefaultTurnWindow, "messages of a session a per-turn LLM extraction reads (plus any not extracted yet)")
	fs.IntVar(&c.MaxPendingTurns, p+"max-pending-turns", 40, "a session with this many turns not extracted yet is extracted without waiting")
	fs.DurationVar(&c.ExtractTimeout, p+"extract-timeout", 90*time.Second, "time limit for one session's LLM extraction")
	fs.DurationVar(&c.LeaseTTL, p+"lease-ttl", 2*time.Minute, "lease on a session while it is extracted (renewed); a crashed extractor's session is taken over after it")
	fs.DurationVar(&c.FailoverDelay, p+"failover-delay", 10*time.Second, "replicas that did not record a session's last turn wait this much longer before extracting it")
	fs.DurationVar(&c.SessionTTL, p+"session-ttl", 24*time.Hour, "session buffers with no new turn for this long are forgotten")
	fs.IntVar(&c.MaxAttempts, p+"max-attempts", 5, "extractions of a session tried while the LLM is unavailable before its turns are given up (counted and logged)")
	fs.IntVar(&c.SessionConcurrency, p+"session-concurrency", 16, "sessions extracted at once by one process")

	fs.IntVar(&c.MaxMessageChars, p+"max-message-chars", DefaultMaxMessageChars, "characters of one message the LLM reads")
	fs.IntVar(&c.MaxConversationChars, p+"max-conversation-chars", DefaultMaxConversationChars, "characters of conversation one LLM call reads (the end is kept)")
	fs.IntVar(&c.MaxWindows, p+"max-windows", 4, "LLM calls per domain a compaction or session end is cut into; earlier messages beyond them are left out")
	fs.IntVar(&c.MaxFacts, p+"max-facts", 10, "facts asked for per domain and call")
	fs.IntVar(&c.MaxTokens, p+"max-tokens", 2048, "max_tokens of an extraction call (0: the server's default)")
	fs.Float64Var(&c.Temperature, p+"temperature", 0, "temperature of extraction calls (negative: the server's default)")

	fs.BoolVar(&c.Transcripts, p+"transcripts", true, "keep every conversation message (turns, compaction and session-end messages) as a searchable transcript memory")
	deprecatedTranscriptFlags(prefix, fs)

	fs.BoolVar(&c.Personality, p+"personality", true, "synthesise a personality directive from style observations (needs the LLM)")
	fs.IntVar(&c.MinStyleObservations, p+"min-style-observations", DefaultMinStyles, "live style observations needed before a directive is synthesised")

	c.Filter.RegisterFlags(prefix, fs)
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	positive := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("extractor-%s must be at least 1 (got %d)", name, v))
		}
	}
	positive("concurrency", c.Concurrency)
	positive("max-deliver", c.MaxDeliver)
	positive("turn-window", c.TurnWindow)
	positive("max-pending-turns", c.MaxPendingTurns)
	positive("max-attempts", c.MaxAttempts)
	positive("session-concurrency", c.SessionConcurrency)
	positive("max-message-chars", c.MaxMessageChars)
	positive("max-windows", c.MaxWindows)
	positive("max-facts", c.MaxFacts)
	positive("min-style-observations", c.MinStyleObservations)
	for name, d := range map[string]time.Duration{"timeout": c.HandlerTimeout, "debounce": c.Debounce,
		"extract-timeout": c.ExtractTimeout, "lease-ttl": c.LeaseTTL, "session-ttl": c.SessionTTL} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("extractor-%s must be positive (got %s)", name, d))
		}
	}
	if c.FailoverDelay < 0 {
		errs = append(errs, errors.New("extractor-failover-delay must not be negative"))
	}
	if c.MaxConversationChars < c.MaxMessageChars {
		errs = append(errs, fmt.Errorf("extractor-max-conversation-chars %d must be at least extractor-max-message-chars %d",
			c.MaxConversationChars, c.MaxMessageChars))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("extractor-max-tokens must not be negative (got %d)", c.MaxTokens))
	}
	if err := c.Filter.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// DefaultConfig is the configuration the flags default to.
func DefaultConfig() Config {
	var c Config
	c.RegisterFlags("", pflag.NewFlagSet("defaults", pflag.ContinueOnError))
	return c
}

// deprecatedTranscriptFlags keeps the flags of the block transcripts
// (messages joined in blocks and chunked) parsing, with a warning: every
// message is its own transcript memory now, so they have no effect.
func deprecatedTranscriptFlags(prefix string, fs *pflag.FlagSet) {
	old := pflag.NewFlagSet("transcript-chunks", pflag.ContinueOnError)
	old.Int(prefix+"extractor-transcript-block", 5, "messages per transcript block")
	var c chunk.Config
	c.RegisterFlags(prefix+"transcript-", old)
	old.VisitAll(func(f *pflag.Flag) {
		f.Deprecated = "transcripts are kept one memory per message; the flag has no effect"
		f.Hidden = true
		fs.AddFlag(f)
	})
}
