// Package memlock is an in-process lock.Locker: leases live in a map, so
// they exclude owners within one process only. It backs the single-process
// deployment; split deployments use redislock.
package memlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// minSweep is the map size below which expired leases are not swept; they
// are otherwise only removed when their key is taken over.
const minSweep = 1024

// Locker hands out in-process leases. The zero value is not usable; call New.
type Locker struct {
	now func() time.Time

	mu      sync.Mutex
	leases  map[string]entry
	nextTok uint64
	sweepAt int
}

// entry is the current owner of a key.
type entry struct {
	token   uint64
	expires time.Time
}

// Option configures a Locker.
type Option func(*Locker)

// WithClock replaces time.Now, so tests can expire leases without waiting.
func WithClock(now func() time.Time) Option {
	return func(l *Locker) { l.now = now }
}

// New returns an empty Locker.
func New(opts ...Option) *Locker {
	l := &Locker{now: time.Now, leases: map[string]entry{}, sweepAt: minSweep}
	for _, o := range opts {
		o(l)
	}
	return l
}

var _ lock.Locker = (*Locker)(nil)

// Acquire takes key for ttl, or returns lock.ErrHeld while another lease on
// key is live. An expired lease is taken over.
func (l *Locker) Acquire(ctx context.Context, key string, ttl time.Duration) (lock.Lease, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return nil, fmt.Errorf("acquire lease %q: %w", key, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if e, ok := l.leases[key]; ok && now.Before(e.expires) {
		return nil, lock.ErrHeld
	}
	l.nextTok++
	l.leases[key] = entry{token: l.nextTok, expires: now.Add(ttl)}
	l.maybeSweep(now)
	return &lease{l: l, key: key, token: l.nextTok}, nil
}

// maybeSweep drops expired leases once the map has doubled since the last
// sweep, so abandoned keys cannot grow it without bound at O(1) amortised
// cost. Callers hold l.mu.
func (l *Locker) maybeSweep(now time.Time) {
	if len(l.leases) < l.sweepAt {
		return
	}
	for k, e := range l.leases {
		if !now.Before(e.expires) {
			delete(l.leases, k)
		}
	}
	l.sweepAt = max(minSweep, 2*len(l.leases))
}

// own runs fn on key's entry if token still owns it and it has not expired;
// otherwise it returns lock.ErrLost.
func (l *Locker) own(key string, token uint64, fn func(now time.Time)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	e, ok := l.leases[key]
	if !ok || e.token != token {
		return lock.ErrLost
	}
	if !now.Before(e.expires) {
		delete(l.leases, key)
		return lock.ErrLost
	}
	fn(now)
	return nil
}

func checkArgs(ctx context.Context, key string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("empty key")
	}
	return checkTTL(ttl)
}

func checkTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("ttl must be positive, got %s", ttl)
	}
	return nil
}
