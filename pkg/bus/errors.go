package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrUnavailable is wrapped by publish errors when the server or stream
// cannot take the message now (no responders, timeout, disconnected, stream
// full): the caller may retry later; ingest answers 503.
var ErrUnavailable = errors.New("bus unavailable")

// ErrTooLarge is wrapped by publish errors when the message exceeds the
// stream's or the server's maximum size: retrying will not help (413).
var ErrTooLarge = errors.New("message too large")

// JetStream API error codes that mean "cannot store now" (see nats-server's
// errors.json); a 503 status covers the rest.
const (
	jsErrInsufficientResources = 10023
	jsErrMemoryResources       = 10028
	jsErrStorageResources      = 10047
	jsErrStoreFailed           = 10077 // maximum bytes/messages exceeded under DiscardNew
)

// classify wraps err with ErrUnavailable or ErrTooLarge where it applies.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTooLarge) {
		return err
	}
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, nats.ErrMaxPayload),
		errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.As(err, &apiErr):
		switch {
		case apiErr.Code == 503,
			apiErr.ErrorCode == jsErrInsufficientResources,
			apiErr.ErrorCode == jsErrMemoryResources,
			apiErr.ErrorCode == jsErrStorageResources,
			apiErr.ErrorCode == jsErrStoreFailed:
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, nats.ErrConnectionClosed),
		errors.Is(err, nats.ErrConnectionDraining),
		errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected),
		errors.Is(err, jetstream.ErrConnectionClosed),
		errors.Is(err, jetstream.ErrAsyncPublishTimeout),
		errors.Is(err, jetstream.ErrTooManyStalledMsgs),
		errors.Is(err, jetstream.ErrJetStreamPublisherClosed),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// permanentError marks a handler error that redelivery cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as permanent: the runner terminates the message and
// dead-letters it instead of retrying. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil || IsPermanent(err) {
		return err
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err, or an error it wraps, was marked Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}
