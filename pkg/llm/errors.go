package llm

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrDisabled is returned by every call of a client whose level is off: the
// caller should fall back to its heuristics.
var ErrDisabled = errors.New("llm disabled")

// ErrUnavailable means no provider could serve the call although the
// request itself was fine: transient failures (network, timeouts, 429,
// 5xx, unreadable answers) outlasted the retries, or a provider refused
// for its own configuration (401, 402, 403, 404: key, billing, model).
// Trying again later, or after an operator fix, may succeed. errors.As
// with *HTTPError finds the HTTP answer of the first provider that gave
// one.
var ErrUnavailable = errors.New("llm unavailable")

// HTTPError is a non-2xx answer of a provider.
type HTTPError struct {
	Provider   string
	Model      string
	Status     int
	Message    string        // the provider's error message
	RetryAfter time.Duration // from Retry-After / retry-after-ms, 0 when absent
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("llm %s model %s: http %d %s: %s", e.Provider, e.Model, e.Status, http.StatusText(e.Status), e.Message)
}

// errBadAnswer is a 2xx answer the client cannot read; it counts as
// transient, as a provider or proxy glitch.
var errBadAnswer = errors.New("unreadable answer")

// class is what a failed attempt means for the call.
type class int

const (
	// transient: retry this provider after a backoff.
	transient class = iota
	// refused: this provider will not serve it (auth, billing, unknown
	// model); go to the next provider without retrying.
	refused
	// callerFault: the request is at fault (400, 413, 422, other 4xx);
	// another provider would refuse it too, so return it.
	callerFault
)

// classify sorts an attempt's error.
func classify(err error) class {
	var he *HTTPError
	if !errors.As(err, &he) {
		return transient // network, timeout, unreadable answer
	}
	switch s := he.Status; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests, s >= 500:
		return transient
	case s == http.StatusUnauthorized, s == http.StatusPaymentRequired, s == http.StatusForbidden, s == http.StatusNotFound:
		return refused
	default:
		return callerFault
	}
}
