package memlock

import (
	"context"
	"fmt"
	"time"

	"github.com/recollect-dev/recollect/pkg/lock"
)

// lease is one owner's claim on a key; token tells it apart from later
// owners of the same key.
type lease struct {
	l     *Locker
	key   string
	token uint64
}

var _ lock.Lease = (*lease)(nil)

func (s *lease) Key() string { return s.key }

// Renew extends the lease to ttl from now, or returns lock.ErrLost if it
// expired or was taken over.
func (s *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("renew lease %q: %w", s.key, err)
	}
	if err := checkTTL(ttl); err != nil {
		return fmt.Errorf("renew lease %q: %w", s.key, err)
	}
	return s.l.own(s.key, s.token, func(now time.Time) {
		s.l.leases[s.key] = entry{token: s.token, expires: now.Add(ttl)}
	})
}

// Release gives the key up, or returns lock.ErrLost if the lease expired or
// was taken over (a newer owner's lease is left alone).
func (s *lease) Release(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release lease %q: %w", s.key, err)
	}
	return s.l.own(s.key, s.token, func(time.Time) {
		delete(s.l.leases, s.key)
	})
}
