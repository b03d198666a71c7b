// Package lock provides leases: time-bound exclusive ownership of a key, so
// that one extraction per session or one epoch per tenant runs at a time.
package lock

import (
	"context"
	"errors"
	"time"
)

// ErrHeld is returned by Acquire when another owner holds the key.
var ErrHeld = errors.New("lease held by another owner")

// ErrLost is returned by Renew and Release when the lease expired or was
// taken over by another owner.
var ErrLost = errors.New("lease lost")

// Locker hands out leases.
type Locker interface {
	// Acquire takes key for ttl, or returns ErrHeld at once.
	Acquire(ctx context.Context, key string, ttl time.Duration) (Lease, error)
}

// Lease is held until it is released or its ttl runs out.
type Lease interface {
	Key() string
	// Renew extends the lease to ttl from now, if it is still ours.
	Renew(ctx context.Context, ttl time.Duration) error
	// Release gives the lease up, only if it is still ours.
	Release(ctx context.Context) error
}
