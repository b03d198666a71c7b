package webhook

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Defaults of Config.
const (
	DefaultTimeout          = 10 * time.Second
	DefaultMaxResponseBytes = 64 << 10
	DefaultMaxAttempts      = 10
	DefaultRetryBase        = 2 * time.Second
	DefaultRetryMax         = 10 * time.Minute
	DefaultRotationGrace    = 24 * time.Hour
)

// Config tunes the endpoints' registry and the sender.
type Config struct {
	// AllowPrivate lets endpoints resolve to loopback, link-local, private
	// and other non-public addresses (an operator's choice for a receiver
	// on the same network; off, a tenant cannot make the server call its
	// own network).
	AllowPrivate bool
	// Timeout bounds one delivery attempt, connection to last byte.
	Timeout time.Duration
	// MaxResponseBytes is how much of an endpoint's answer is read.
	MaxResponseBytes int64
	// MaxAttempts is how many times an event is tried on an endpoint
	// before it is dead-lettered with the last failure.
	MaxAttempts int
	// RetryBase and RetryMax bound the exponential back-off between
	// attempts (RetryBase doubled after each failure, at most RetryMax).
	RetryBase, RetryMax time.Duration
	// RotationGrace is how long a rotated-out secret still signs next to
	// the new one.
	RotationGrace time.Duration
}

// DefaultConfig is the zero-setup configuration.
func DefaultConfig() Config {
	return Config{Timeout: DefaultTimeout, MaxResponseBytes: DefaultMaxResponseBytes, MaxAttempts: DefaultMaxAttempts,
		RetryBase: DefaultRetryBase, RetryMax: DefaultRetryMax, RotationGrace: DefaultRotationGrace}
}

// RegisterFlags adds the webhook flags under prefix.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	d := DefaultConfig()
	fs.BoolVar(&c.AllowPrivate, prefix+"webhook-allow-private", false, "let webhook endpoints resolve to loopback, link-local and private addresses")
	fs.DurationVar(&c.Timeout, prefix+"webhook-timeout", d.Timeout, "bound on one webhook delivery attempt")
	fs.Int64Var(&c.MaxResponseBytes, prefix+"webhook-max-response-bytes", d.MaxResponseBytes, "how much of a webhook endpoint's answer is read")
	fs.IntVar(&c.MaxAttempts, prefix+"webhook-max-attempts", d.MaxAttempts, "delivery attempts of one event before it is dead-lettered")
	fs.DurationVar(&c.RetryBase, prefix+"webhook-retry-base", d.RetryBase, "first back-off between webhook delivery attempts, doubled after each")
	fs.DurationVar(&c.RetryMax, prefix+"webhook-retry-max", d.RetryMax, "longest back-off between webhook delivery attempts")
	fs.DurationVar(&c.RotationGrace, prefix+"webhook-rotation-grace", d.RotationGrace, "how long a rotated webhook secret still signs next to the new one")
}

// Validate names the bad setting.
func (c *Config) Validate() error {
	var errs []error
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("webhook-timeout %s: must be positive", c.Timeout))
	}
	if c.MaxResponseBytes <= 0 {
		errs = append(errs, fmt.Errorf("webhook-max-response-bytes %d: must be positive", c.MaxResponseBytes))
	}
	if c.MaxAttempts < 1 {
		errs = append(errs, fmt.Errorf("webhook-max-attempts %d: must be at least 1", c.MaxAttempts))
	}
	if c.RetryBase <= 0 || c.RetryMax < c.RetryBase {
		errs = append(errs, fmt.Errorf("webhook-retry-base %s and webhook-retry-max %s: base must be positive and at most max", c.RetryBase, c.RetryMax))
	}
	if c.RotationGrace < 0 {
		errs = append(errs, errors.New("webhook-rotation-grace: must not be negative"))
	}
	return errors.Join(errs...)
}

// backoff is the delay after the n-th failed attempt.
func (c *Config) backoff(n uint64) time.Duration {
	d := c.RetryBase
	for i := uint64(1); i < n && d < c.RetryMax; i++ {
		d *= 2
	}
	return min(d, c.RetryMax)
}
