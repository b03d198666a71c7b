package qdrant

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// DefaultTimeout bounds each call to Qdrant, Open's checks included.
const DefaultTimeout = 10 * time.Second

// DefaultCollectionPrefix starts every collection name.
const DefaultCollectionPrefix = "recollect_"

// Config holds the Qdrant store's settings. The server address is not here:
// the app owns --qdrant-addr and passes it to Open.
type Config struct {
	// APIKey authenticates to Qdrant (sent as the api-key header).
	APIKey string
	// CollectionPrefix starts the name of each per-model collection.
	CollectionPrefix string
	// UseTLS dials with TLS (1.3; system roots unless TLS.CA is set).
	UseTLS bool
	// TLS trusts a custom CA and presents a client certificate; it needs
	// UseTLS.
	TLS tlsconf.Files
	// Timeout bounds each call to Qdrant.
	Timeout time.Duration
}

// DefaultConfig returns the settings used when none are given.
func DefaultConfig() Config {
	return Config{CollectionPrefix: DefaultCollectionPrefix, Timeout: DefaultTimeout}
}

// RegisterFlags adds the settings to fs, each name prefixed with prefix.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	d := DefaultConfig()
	fs.StringVar(&c.APIKey, prefix+"qdrant-api-key", d.APIKey, "API key for Qdrant (sent in the clear unless --qdrant-tls)")
	fs.StringVar(&c.CollectionPrefix, prefix+"qdrant-collection", d.CollectionPrefix,
		"prefix of Qdrant collection names; each embedding model gets <prefix><model>_<dims>")
	fs.BoolVar(&c.UseTLS, prefix+"qdrant-tls", d.UseTLS, "connect to Qdrant with TLS")
	c.TLS.RegisterFlags(fs, prefix+"qdrant", "Qdrant (with --qdrant-tls)")
	fs.DurationVar(&c.Timeout, prefix+"qdrant-timeout", d.Timeout, "how long one call to Qdrant may take")
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	if c.Timeout <= 0 {
		return fmt.Errorf("qdrant-timeout must be positive (got %s)", c.Timeout)
	}
	if len(c.CollectionPrefix) > maxPrefixLen {
		return fmt.Errorf("qdrant-collection must be at most %d characters (got %d)", maxPrefixLen, len(c.CollectionPrefix))
	}
	for _, r := range c.CollectionPrefix {
		if !nameRune(r) {
			return fmt.Errorf("qdrant-collection %q: only letters, digits, _ and - are allowed", c.CollectionPrefix)
		}
	}
	if err := c.TLS.Validate("qdrant"); err != nil {
		return err
	}
	if c.TLS.Set() && !c.UseTLS {
		return errors.New("qdrant-tls-* files need --qdrant-tls")
	}
	for _, r := range c.APIKey {
		if r < 0x20 || r > 0x7e {
			return errors.New("qdrant-api-key must be printable ASCII (it travels as a header)")
		}
	}
	return nil
}
