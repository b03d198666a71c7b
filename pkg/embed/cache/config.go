package cache

import (
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/pflag"
)

// Backend kinds.
const (
	KindAuto   = "auto"   // redis when a Redis client is given, else memory
	KindMemory = "memory" // in-process LRU
	KindRedis  = "redis"  // shared Redis
	KindOff    = "off"    // no cache
)

// Config selects and sizes the embedding cache.
type Config struct {
	Kind       string
	MaxBytes   int64
	MaxEntries int
	TTL        time.Duration
	Timeout    time.Duration
}

// RegisterFlags registers --<prefix>embed-cache and its settings.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.Kind, prefix+"embed-cache", KindAuto,
		"embedding cache: auto (redis when --redis-url is set, else memory), memory, redis or off")
	fs.Int64Var(&c.MaxBytes, prefix+"embed-cache-max-bytes", DefaultMaxBytes,
		"approximate memory the in-process embedding cache may use (0: bounded by entries only)")
	fs.IntVar(&c.MaxEntries, prefix+"embed-cache-max-entries", 0,
		"most vectors in the in-process embedding cache (0: bounded by bytes only)")
	fs.DurationVar(&c.TTL, prefix+"embed-cache-ttl", DefaultTTL,
		"how long Redis keeps a cached embedding (0: until Redis evicts it)")
	fs.DurationVar(&c.Timeout, prefix+"embed-cache-timeout", DefaultTimeout,
		"time limit of one Redis cache operation; past it the vectors are computed instead")
}

// Validate checks the settings.
func (c *Config) Validate() error {
	var errs []error
	switch c.Kind {
	case KindAuto, KindMemory, KindRedis, KindOff:
	default:
		errs = append(errs, fmt.Errorf("embed-cache %q: want auto, memory, redis or off", c.Kind))
	}
	if c.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("embed-cache-max-bytes %d: must not be negative", c.MaxBytes))
	}
	if c.MaxEntries < 0 {
		errs = append(errs, fmt.Errorf("embed-cache-max-entries %d: must not be negative", c.MaxEntries))
	}
	if (c.Kind == KindMemory || c.Kind == KindAuto) && c.MaxBytes == 0 && c.MaxEntries == 0 {
		errs = append(errs, errors.New("embed-cache-max-bytes and embed-cache-max-entries are both 0: the in-process cache would be unbounded"))
	}
	if c.TTL < 0 {
		errs = append(errs, fmt.Errorf("embed-cache-ttl %s: must not be negative", c.TTL))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("embed-cache-timeout %s: must not be negative", c.Timeout))
	}
	return errors.Join(errs...)
}

// NewBackend builds the backend cfg selects; client may be nil when no
// Redis is configured. It returns nil, nil when the cache is off.
func NewBackend(cfg Config, client redis.UniversalClient) (Backend, error) {
	kind := cfg.Kind
	if kind == KindAuto || kind == "" {
		kind = KindMemory
		if client != nil {
			kind = KindRedis
		}
	}
	switch kind {
	case KindOff:
		return nil, nil
	case KindMemory:
		return NewLRU(cfg.MaxEntries, cfg.MaxBytes), nil
	case KindRedis:
		if client == nil {
			return nil, errors.New("embed-cache redis needs --redis-url")
		}
		return NewRedis(client, WithTTL(cfg.TTL), WithTimeout(cfg.Timeout)), nil
	}
	return nil, fmt.Errorf("embed-cache %q: want auto, memory, redis or off", cfg.Kind)
}
