package remote

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Config is how a process reaches (or serves) the shared store over NATS.
type Config struct {
	SubjectPrefix  string
	RequestTimeout time.Duration
	MaxInFlight    int
}

// RegisterFlags adds the remote store flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.SubjectPrefix, prefix+"store-remote-subject-prefix", DefaultSubjectPrefix, "NATS subject prefix of the shared store's requests (<prefix>.<op>)")
	fs.DurationVar(&c.RequestTimeout, prefix+"store-remote-timeout", DefaultRequestTimeout, "how long one request to the shared store may take")
	fs.IntVar(&c.MaxInFlight, prefix+"store-remote-max-in-flight", DefaultMaxInFlight, "how many store requests the serving process handles at once")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if err := checkPrefix(c.SubjectPrefix); err != nil {
		return fmt.Errorf("store-remote-subject-prefix: %w", err)
	}
	if c.RequestTimeout <= 0 {
		return fmt.Errorf("store-remote-timeout must be positive (got %s)", c.RequestTimeout)
	}
	if c.MaxInFlight <= 0 {
		return fmt.Errorf("store-remote-max-in-flight must be positive (got %d)", c.MaxInFlight)
	}
	return nil
}

// Options turns the configuration into options for Serve and NewClient.
func (c *Config) Options() []Option {
	return []Option{
		WithSubjectPrefix(c.SubjectPrefix),
		WithRequestTimeout(c.RequestTimeout),
		WithMaxInFlight(c.MaxInFlight),
	}
}

// checkPrefix accepts dot-separated tokens without wildcards or whitespace,
// since the prefix is subscribed to as <prefix>.*.
func checkPrefix(p string) error {
	if p == "" {
		return fmt.Errorf("subject prefix is empty")
	}
	for _, tok := range strings.Split(p, ".") {
		if tok == "" {
			return fmt.Errorf("subject prefix %q has an empty token", p)
		}
		if tok == "*" || tok == ">" || strings.ContainsAny(tok, " \t\r\n") {
			return fmt.Errorf("subject prefix %q contains a wildcard or whitespace", p)
		}
	}
	return nil
}
