package auth

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/pflag"
)

// Config is where keys come from and how fast each may be used.
type Config struct {
	// KeysFile is a YAML or JSON list of keys (see File).
	KeysFile string
	// Keys is "key=tenant[:admin],..."; meant for RECOLLECT_API_KEYS, since
	// a command line is visible to every user of the machine.
	Keys string
	// RateLimit is the requests per second allowed per key; 0 is unlimited.
	RateLimit float64
	// RateBurst is how many requests a key may send at once.
	RateBurst int
}

// RegisterFlags adds the auth flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.KeysFile, prefix+"api-keys-file", "", "YAML or JSON list of API keys: {key or sha256, tenant, scopes: [tenant|admin], name, rate_limit, rate_burst}")
	fs.StringVar(&c.Keys, prefix+"api-keys", "", "API keys as key=tenant[:admin],...; set RECOLLECT_API_KEYS rather than the flag, which other users can see")
	fs.Float64Var(&c.RateLimit, prefix+"rate-limit", 100, "requests per second allowed per API key, 0 for unlimited (a key's rate_limit overrides it)")
	fs.IntVar(&c.RateBurst, prefix+"rate-burst", 200, "requests an API key may send at once before rate-limit applies (a key's rate_burst overrides it)")
}

// Validate checks the settings and the syntax of Keys; the file is read by New.
func (c *Config) Validate() error {
	var errs []error
	if c.RateLimit < 0 || math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0) {
		errs = append(errs, fmt.Errorf("rate-limit must be a finite number >= 0 (got %g)", c.RateLimit))
	}
	if c.RateBurst < 1 {
		errs = append(errs, fmt.Errorf("rate-burst must be at least 1 (got %d)", c.RateBurst))
	}
	if _, err := ParseKeyList(c.Keys); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
