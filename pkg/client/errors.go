package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Errors matched by errors.Is on an *Error.
var (
	ErrNotFound     = errors.New("not found")
	ErrUnavailable  = errors.New("unavailable")
	ErrUnauthorized = errors.New("unauthorized")
	// ErrInvalid is memory.ErrInvalid, so one check covers client-side and
	// server-side validation.
	ErrInvalid = memory.ErrInvalid
)

// Error is an answer outside 2xx.
type Error struct {
	Method string
	Path   string // without the query string
	Status int
	// Message is the server's "error", or the body's text when it sent no
	// JSON error.
	Message string
	Field   string // the offending field of a 400, when the server names one
	Code    string // the server's code, e.g. "invalid_request", "rate_limited"
	// RetryAfter is the wait the server asked for (429, 503), else 0.
	RetryAfter time.Duration
	// body is the raw answer (bounded), for calls whose error answers carry
	// more than web.Error, like an import's bad lines.
	body []byte
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s answered %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	return b.String()
}

// Is matches the sentinel errors of the package by status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrUnavailable:
		return e.Status == http.StatusServiceUnavailable || e.Status == http.StatusTooManyRequests
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrInvalid:
		return e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity
	}
	return false
}

// retryable reports whether the status invites a resend.
func retryable(status int) bool {
	return status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests
}
