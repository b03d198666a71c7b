// Package redislock is a lock.Locker on Redis, so leases exclude owners
// across processes. A lease is one key holding a random owner token with a
// PX expiry; release and renewal are compare-and-act Lua scripts, so a
// stale owner can never touch a newer owner's lease.
package redislock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// DefaultPrefix namespaces lease keys within a shared Redis.
const DefaultPrefix = "recollect:lease:"

// Locker hands out leases stored in Redis. It is safe for concurrent use.
type Locker struct {
	client  redis.UniversalClient
	prefix  string
	release *redis.Script
	renew   *redis.Script
}

// Option configures a Locker.
type Option func(*Locker)

// WithPrefix replaces DefaultPrefix, e.g. to separate deployments sharing
// one Redis.
func WithPrefix(prefix string) Option {
	return func(l *Locker) { l.prefix = prefix }
}

// New returns a Locker using client, which the caller keeps and closes.
func New(client redis.UniversalClient, opts ...Option) *Locker {
	l := &Locker{
		client:  client,
		prefix:  DefaultPrefix,
		release: redis.NewScript(releaseScript),
		renew:   redis.NewScript(renewScript),
	}
	for _, o := range opts {
		o(l)
	}
	return l
}

var _ lock.Locker = (*Locker)(nil)

// Acquire takes key for ttl with SET NX PX, or returns lock.ErrHeld while
// another owner's lease is live. Redis errors are returned wrapped.
func (l *Locker) Acquire(ctx context.Context, key string, ttl time.Duration) (lock.Lease, error) {
	// Checked first so a canceled caller never takes a lease it cannot see.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("acquire lease %q: %w", key, err)
	}
	if key == "" {
		return nil, errors.New("acquire lease: empty key")
	}
	ms, err := millis(ttl)
	if err != nil {
		return nil, fmt.Errorf("acquire lease %q: %w", key, err)
	}
	token := newToken()
	err = l.client.Do(ctx, "set", l.prefix+key, token, "nx", "px", ms).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, lock.ErrHeld
	case err != nil:
		return nil, fmt.Errorf("acquire lease %q: %w", key, err)
	}
	return &lease{l: l, key: key, token: token}, nil
}

// newToken returns 128 random bits, unique per lease across all processes.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand aborts the program instead
	return hex.EncodeToString(b[:])
}

// millis converts ttl for PX, rounding up: a lease may outlast its ttl by
// under a millisecond but never end before it.
func millis(ttl time.Duration) (int64, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("ttl must be positive, got %s", ttl)
	}
	return int64((ttl + time.Millisecond - 1) / time.Millisecond), nil
}
