package llm

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/pflag"
)

// Level says how much the pipeline may lean on the LLM.
type Level string

// Levels. Off: rule capture and heuristics only. Auto: heuristics decide
// the clear cases and the LLM the uncertain ones. Full: the LLM reviews
// every candidate.
const (
	LevelOff  Level = "off"
	LevelAuto Level = "auto"
	LevelFull Level = "full"
)

// JSONMode says whether JSON calls send response_format json_object.
type JSONMode string

// JSON modes. Auto sends it and, when a provider answers 400 naming
// response_format, remembers that provider lacks it and retries without.
const (
	JSONAuto JSONMode = "auto"
	JSONOn   JSONMode = "on"
	JSONOff  JSONMode = "off"
)

// Defaults.
const (
	DefaultModel             = "gpt-4o-mini"
	DefaultTimeout           = 60 * time.Second
	DefaultMaxRetries        = 3
	DefaultTenantConcurrency = 4
)

// Config is the LLM client's configuration. The zero Config (no URL) is a
// disabled client.
type Config struct {
	URL    string // base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1
	APIKey string
	Model  string // default model
	// Models maps a tier to its model; a missing or empty entry uses the
	// default model (audit first tries the gate model).
	Models map[Tier]string

	// Fallback providers, tried in order after the primary. Entry i is
	// FallbackURLs[i] (empty: the primary URL), FallbackModels[i] (empty:
	// the model the primary uses for the tier) and FallbackAPIKeys[i]
	// (empty: the primary key when the URL is the primary's, else none, so
	// a key never travels to a host it was not given for).
	FallbackURLs    []string
	FallbackModels  []string
	FallbackAPIKeys []string

	Level             Level // "": off without URL, else auto
	JSONMode          JSONMode
	Timeout           time.Duration // per HTTP attempt
	MaxRetries        int           // retries per provider after the first attempt
	TenantConcurrency int           // concurrent calls per tenant
}

// RegisterFlags registers the --<prefix>llm-* flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	p := prefix + "llm-"
	fs.StringVar(&c.URL, p+"url", "", "base URL of an OpenAI-compatible API (OpenAI, Ollama, vLLM, llama.cpp), e.g. http://localhost:11434/v1; empty: no LLM")
	fs.StringVar(&c.APIKey, p+"api-key", "", "API key sent as a bearer token to --"+p+"url")
	fs.StringVar(&c.Model, p+"model", DefaultModel, "default chat model")
	if c.Models == nil {
		c.Models = make(map[Tier]string, len(tiers))
	}
	for _, t := range tiers {
		usage := fmt.Sprintf("model for %s calls (empty: --%smodel)", t, p)
		if fb, ok := tierFallback[t]; ok {
			usage = fmt.Sprintf("model for %s calls (empty: --%smodel-%s, then --%smodel)", t, p, fb, p)
		}
		fs.Var(tierModel{m: c.Models, t: t}, p+"model-"+string(t), usage)
	}
	fs.StringSliceVar(&c.FallbackURLs, p+"fallback-urls", nil, "comma list of fallback API base URLs tried in order when the primary is unavailable, cheapest first; an empty entry reuses --"+p+"url")
	fs.StringSliceVar(&c.FallbackModels, p+"fallback-models", nil, "comma list of models, one per fallback (empty entry: the primary's model for the tier)")
	fs.StringSliceVar(&c.FallbackAPIKeys, p+"fallback-api-keys", nil, "comma list of API keys, one per fallback (empty entry: the primary key if the URL is the primary's, else none)")
	fs.StringVar((*string)(&c.Level), p+"level", "", "how much the pipeline uses the LLM: off, auto (only for uncertain cases), full (default: off without --"+p+"url, else auto)")
	fs.StringVar((*string)(&c.JSONMode), p+"json-mode", string(JSONAuto), "send response_format json_object on JSON calls: auto (drop it for a provider that rejects it), on, off")
	fs.DurationVar(&c.Timeout, p+"timeout", DefaultTimeout, "timeout of one LLM HTTP attempt")
	fs.IntVar(&c.MaxRetries, p+"max-retries", DefaultMaxRetries, "retries per provider on rate limits, server errors and timeouts")
	fs.IntVar(&c.TenantConcurrency, p+"tenant-concurrency", DefaultTenantConcurrency, "most LLM calls in flight per tenant")
}

// tierModel is the flag value of one tier's entry in Config.Models.
type tierModel struct {
	m map[Tier]string
	t Tier
}

func (v tierModel) String() string {
	if v.m == nil {
		return ""
	}
	return v.m[v.t]
}

func (v tierModel) Set(s string) error {
	if v.m == nil {
		return errors.New("no model table")
	}
	v.m[v.t] = s
	return nil
}

func (v tierModel) Type() string { return "string" }

// EffectiveLevel resolves an empty Level: off without a URL, else auto.
func (c *Config) EffectiveLevel() Level {
	if c.Level != "" {
		return c.Level
	}
	if c.URL == "" {
		return LevelOff
	}
	return LevelAuto
}

// Validate checks the settings. A zero Timeout or TenantConcurrency takes
// the default in New; a zero MaxRetries means no retries.
func (c *Config) Validate() error {
	var errs []error
	level := c.EffectiveLevel()
	switch level {
	case LevelOff, LevelAuto, LevelFull:
	default:
		errs = append(errs, fmt.Errorf("llm-level %q: want off, auto or full", c.Level))
	}
	switch c.JSONMode {
	case "", JSONAuto, JSONOn, JSONOff:
	default:
		errs = append(errs, fmt.Errorf("llm-json-mode %q: want auto, on or off", c.JSONMode))
	}
	if c.URL != "" {
		if err := checkURL(c.URL); err != nil {
			errs = append(errs, fmt.Errorf("llm-url: %w", err))
		}
	} else if level != LevelOff {
		errs = append(errs, fmt.Errorf("llm-level %s needs llm-url", level))
	}
	if c.URL == "" && (len(c.FallbackURLs) > 0 || len(c.FallbackModels) > 0) {
		errs = append(errs, errors.New("llm fallbacks need llm-url"))
	}
	if level != LevelOff && c.Model == "" {
		errs = append(errs, errors.New("llm-model: must not be empty when the LLM is on"))
	}
	for t := range c.Models {
		if t == TierDefault || !t.Valid() {
			errs = append(errs, fmt.Errorf("llm model for unknown tier %q", t))
		}
	}
	for i, u := range c.FallbackURLs {
		if u == "" {
			continue
		}
		if err := checkURL(u); err != nil {
			errs = append(errs, fmt.Errorf("llm-fallback-urls entry %d: %w", i+1, err))
		}
	}
	if n := c.fallbackCount(); len(c.FallbackAPIKeys) > n {
		errs = append(errs, fmt.Errorf("llm-fallback-api-keys has %d entries for %d fallbacks", len(c.FallbackAPIKeys), n))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("llm-timeout %s: must not be negative", c.Timeout))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("llm-max-retries %d: must not be negative", c.MaxRetries))
	}
	if c.TenantConcurrency < 0 {
		errs = append(errs, fmt.Errorf("llm-tenant-concurrency %d: must not be negative", c.TenantConcurrency))
	}
	return errors.Join(errs...)
}

// fallbackCount is how many fallback providers the lists describe.
func (c *Config) fallbackCount() int { return max(len(c.FallbackURLs), len(c.FallbackModels)) }

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("parse %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: want http(s)://host[:port]/path", raw)
	}
	return nil
}
