package cache

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis defaults: Nebo drops cached embeddings after 30 days; an operation
// on a healthy Redis takes about a millisecond, so half a second only bounds
// how long a stuck one delays embedding.
const (
	DefaultTTL       = 30 * 24 * time.Hour
	DefaultTimeout   = 500 * time.Millisecond
	DefaultKeyPrefix = "recollect:embed:v1:"
)

// mgetKeys bounds the keys of one MGET so a large batch does not block the
// server on one command; the MGETs of a batch share one round trip.
const mgetKeys = 256

// Redis is a Backend on a standalone (or Sentinel-managed) Redis shared by
// every process of a deployment. Vectors are stored as little-endian
// float32 bytes with a TTL.
type Redis struct {
	client  redis.UniversalClient
	ttl     time.Duration
	timeout time.Duration
	prefix  string
}

// RedisOption configures a Redis backend.
type RedisOption func(*Redis)

// WithTTL sets how long a vector stays cached (refreshed when re-set); zero
// keeps vectors until Redis evicts them.
func WithTTL(d time.Duration) RedisOption { return func(r *Redis) { r.ttl = d } }

// WithTimeout bounds each Redis operation, so a stuck Redis delays an embed
// by at most this before the vectors are computed instead. It takes effect
// on clients with ContextTimeoutEnabled (redislock.NewClient sets it).
func WithTimeout(d time.Duration) RedisOption { return func(r *Redis) { r.timeout = d } }

// WithKeyPrefix sets the prefix of every key (default DefaultKeyPrefix).
func WithKeyPrefix(p string) RedisOption { return func(r *Redis) { r.prefix = p } }

// NewRedis returns a backend on client; the caller owns and closes it.
func NewRedis(client redis.UniversalClient, opts ...RedisOption) *Redis {
	r := &Redis{client: client, ttl: DefaultTTL, timeout: DefaultTimeout, prefix: DefaultKeyPrefix}
	for _, o := range opts {
		o(r)
	}
	return r
}

// GetMulti reads keys with pipelined MGETs. Values that do not decode as
// vectors are treated as absent.
func (r *Redis) GetMulti(ctx context.Context, keys []string) (map[string][]float32, error) {
	if len(keys) == 0 {
		return map[string][]float32{}, nil
	}
	ctx, cancel := r.bound(ctx)
	defer cancel()
	pipe := r.client.Pipeline()
	cmds := make([]*redis.SliceCmd, 0, (len(keys)+mgetKeys-1)/mgetKeys)
	for start := 0; start < len(keys); start += mgetKeys {
		part := keys[start:min(start+mgetKeys, len(keys))]
		full := make([]string, len(part))
		for i, k := range part {
			full[i] = r.prefix + k
		}
		cmds = append(cmds, pipe.MGet(ctx, full...))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read %d cached embeddings: %w", len(keys), err)
	}
	out := make(map[string][]float32, len(keys))
	for c, cmd := range cmds {
		for i, v := range cmd.Val() {
			s, ok := v.(string)
			if !ok {
				continue // nil: not cached
			}
			if vec, err := decodeVector([]byte(s)); err == nil {
				out[keys[c*mgetKeys+i]] = vec
			}
		}
	}
	return out, nil
}

// SetMulti writes entries with pipelined SETs carrying the TTL.
func (r *Redis) SetMulti(ctx context.Context, entries map[string][]float32) error {
	if len(entries) == 0 {
		return nil
	}
	ctx, cancel := r.bound(ctx)
	defer cancel()
	pipe := r.client.Pipeline()
	for k, v := range entries {
		pipe.Set(ctx, r.prefix+k, encodeVector(v), r.ttl)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("write %d cached embeddings: %w", len(entries), err)
	}
	return nil
}

func (r *Redis) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, r.timeout)
}

// errBadVector marks a cached value that is not a whole number of floats.
var errBadVector = errors.New("cached vector is not a multiple of 4 bytes")
