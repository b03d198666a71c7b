package redislock

import (
	"context"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// The scripts act only while the key still holds our token; they return 1
// when they acted and 0 when the lease was lost.
const (
	releaseScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`
	renewScript = `if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`
)

// lease is one owner's claim: the key holds token while it is ours.
type lease struct {
	l     *Locker
	key   string
	token string
}

var _ lock.Lease = (*lease)(nil)

func (s *lease) Key() string { return s.key }

// Renew sets the lease to expire ttl from now, or returns lock.ErrLost if
// the key expired or belongs to another owner.
func (s *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("renew lease %q: %w", s.key, err)
	}
	ms, err := millis(ttl)
	if err != nil {
		return fmt.Errorf("renew lease %q: %w", s.key, err)
	}
	n, err := s.l.renew.Run(ctx, s.l.client, []string{s.l.prefix + s.key}, s.token, ms).Int()
	if err != nil {
		return fmt.Errorf("renew lease %q: %w", s.key, err)
	}
	if n != 1 {
		return lock.ErrLost
	}
	return nil
}

// Release deletes the key if it still holds our token, or returns
// lock.ErrLost (leaving a newer owner's lease alone).
func (s *lease) Release(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release lease %q: %w", s.key, err)
	}
	n, err := s.l.release.Run(ctx, s.l.client, []string{s.l.prefix + s.key}, s.token).Int()
	if err != nil {
		return fmt.Errorf("release lease %q: %w", s.key, err)
	}
	if n != 1 {
		return lock.ErrLost
	}
	return nil
}
