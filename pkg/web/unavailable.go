package web

import (
	"context"
	"errors"
	"time"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/store"
)

// RetryAfter is how long a 503 for a backend that is down or overloaded
// asks the client to wait before it tries again.
const RetryAfter = 2 * time.Second

// IsUnavailable reports whether err means a backend could not serve the
// call now but may later: the store (local, remote or Qdrant) is closed,
// unreachable or overloaded, the bus is down, or a call ran out of time.
// Every endpoint answers such an error with 503 and Retry-After, never 500.
func IsUnavailable(err error) bool {
	return errors.Is(err, store.ErrUnavailable) ||
		errors.Is(err, bus.ErrUnavailable) ||
		errors.Is(err, context.DeadlineExceeded)
}
