package redislock

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// Config selects the Redis that holds leases.
type Config struct {
	// URL is empty when every module runs in one process and leases stay
	// in memory (memlock).
	URL string
	// TLS trusts a custom CA and presents a client certificate; it needs a
	// rediss:// URL.
	TLS tlsconf.Files
}

// RegisterFlags registers --<prefix>redis-url.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.URL, prefix+"redis-url", c.URL,
		"Redis for leases and debounce locks, as redis://[user:password@]host:port/db "+
			"(rediss:// for TLS; query options such as dial_timeout=2s, pool_size=20); "+
			"empty keeps them in-process, which is only safe when every module runs in one process")
	c.TLS.RegisterFlags(fs, prefix+"redis", "Redis (rediss:// URLs)")
}

// Validate checks the URL parses; an empty URL is valid (in-process locks).
func (c *Config) Validate() error {
	if c.URL == "" {
		return nil
	}
	opts, err := parseURL(c.URL)
	if err != nil {
		return err
	}
	if err := c.TLS.Validate("redis"); err != nil {
		return err
	}
	if c.TLS.Set() && opts.TLSConfig == nil {
		return errors.New("redis-tls-* files need a rediss:// redis-url")
	}
	return nil
}

// NewClient connects lazily to cfg.URL; the first command dials. Context
// deadlines bound every command, so a caller's ctx also bounds a stuck
// Redis.
func NewClient(cfg Config) (*redis.Client, error) {
	if cfg.URL == "" {
		return nil, errors.New("redis client: empty redis url")
	}
	opts, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.TLS.Set() {
		if opts.TLSConfig == nil {
			return nil, errors.New("redis client: redis-tls-* files need a rediss:// url")
		}
		tc, err := cfg.TLS.Config(opts.TLSConfig)
		if err != nil {
			return nil, fmt.Errorf("redis client: %w", err)
		}
		opts.TLSConfig = tc
	}
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), nil
}

// parseURL wraps redis.ParseURL without echoing the URL, which may carry a
// password, into the error.
func parseURL(raw string) (*redis.Options, error) {
	opts, err := redis.ParseURL(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("parse redis url: %w", err)
	}
	return opts, nil
}
