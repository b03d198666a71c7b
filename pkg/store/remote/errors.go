package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// ErrUnavailable is wrapped by every error that means the store did not
// answer: no server subscribed (no responders), no reply within the request
// timeout, or the NATS connection closed.
// It wraps store.ErrUnavailable.
var ErrUnavailable = fmt.Errorf("remote store unavailable: %w", store.ErrUnavailable)

// Error codes of the reply envelope. The client turns each back into an error
// wrapping the matching sentinel.
const (
	codeInvalid     = "invalid"     // memory.ErrInvalid, with field and reason when a *memory.FieldError
	codeDimension   = "dimension"   // store.ErrDimension (a memory.ErrInvalid)
	codeNotFound    = "not_found"   // store.ErrNotFound
	codeConflict    = "conflict"    // store.ErrConflict
	codeClosed      = "closed"      // store.ErrClosed
	codeUnavailable = "unavailable" // store.ErrUnavailable (the server's backend is down or overloaded)
	codeDeadline    = "deadline"    // context.DeadlineExceeded on the server
	codeCanceled    = "canceled"    // context.Canceled on the server
	codeBadRequest  = "bad_request" // the request did not decode
	codeUnsupported = "unsupported" // unknown op (a newer client than server)
	codeInternal    = "internal"    // anything else
)

// encodeError fills the envelope's error fields from err.
func encodeError(env *envelope, err error) {
	env.Error = err.Error()
	var fe *memory.FieldError
	var re *remoteError
	switch {
	case errors.As(err, &fe):
		env.Code, env.Field, env.Reason = codeInvalid, fe.Field, fe.Reason
	case errors.Is(err, store.ErrDimension):
		env.Code = codeDimension
	case errors.Is(err, memory.ErrInvalid):
		env.Code = codeInvalid
	case errors.Is(err, store.ErrNotFound):
		env.Code = codeNotFound
	case errors.Is(err, store.ErrConflict):
		env.Code = codeConflict
	case errors.Is(err, store.ErrClosed):
		env.Code = codeClosed
	case errors.Is(err, store.ErrUnavailable):
		env.Code = codeUnavailable
	case errors.Is(err, context.DeadlineExceeded):
		env.Code = codeDeadline
	case errors.Is(err, context.Canceled):
		env.Code = codeCanceled
	case errors.As(err, &re) && re.code != "":
		// A request error raised by the server itself (bad request, unsupported).
		env.Code = re.code
	default:
		env.Code = codeInternal
	}
}

// decodeError rebuilds the server's error: its message, wrapping the sentinel
// (or *memory.FieldError) its code stands for.
func decodeError(env *envelope) error {
	e := &remoteError{code: env.Code, msg: env.Error}
	if e.msg == "" {
		e.msg = "remote store error " + env.Code
	}
	switch env.Code {
	case codeInvalid:
		if env.Field != "" || env.Reason != "" {
			e.cause = &memory.FieldError{Field: env.Field, Reason: env.Reason}
		} else {
			e.cause = memory.ErrInvalid
		}
	case codeDimension:
		e.cause = store.ErrDimension
	case codeNotFound:
		e.cause = store.ErrNotFound
	case codeConflict:
		e.cause = store.ErrConflict
	case codeClosed:
		e.cause = store.ErrClosed
	case codeUnavailable:
		e.cause = store.ErrUnavailable
	case codeDeadline:
		e.cause = context.DeadlineExceeded
	case codeCanceled:
		e.cause = context.Canceled
	}
	return e
}

// remoteError is an error that crossed the wire: the server's message, and
// the sentinel it matched there.
type remoteError struct {
	code  string
	msg   string
	cause error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.cause }

// requestError is an error the server raises about the request itself.
func requestError(code, msg string) error { return &remoteError{code: code, msg: msg} }
