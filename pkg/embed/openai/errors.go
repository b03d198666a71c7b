package openai

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrDimensionMismatch is returned when the endpoint answers with vectors
// of another width than configured or first seen: the stored vectors could
// no longer be compared with new ones.
var ErrDimensionMismatch = errors.New("embedding dimension mismatch")

// ErrMalformed is returned for a response that is not a valid embeddings
// answer to the request.
var ErrMalformed = errors.New("malformed embeddings response")

// StatusError is an HTTP error answer.
type StatusError struct {
	Code    int
	Message string // the API's error message, or the start of the body
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("status %d %s", e.Code, http.StatusText(e.Code))
	}
	return fmt.Sprintf("status %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Temporary reports whether a retry may succeed: rate limits, timeouts and
// server errors, not bad requests or credentials.
func (e *StatusError) Temporary() bool {
	return e.Code == http.StatusTooManyRequests || e.Code == http.StatusRequestTimeout || e.Code >= 500
}

// transientError marks an attempt worth retrying, after at least wait when
// the server said so.
type transientError struct {
	err  error
	wait time.Duration
}

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }
