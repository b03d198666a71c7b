package remote

import "time"

// Defaults shared by Serve and NewClient.
const (
	// DefaultSubjectPrefix starts every request subject: recollect.store.<op>.
	DefaultSubjectPrefix = "recollect.store"
	// DefaultQueueGroup lets several servers share the requests.
	DefaultQueueGroup = "recollect-store"
	// DefaultRequestTimeout bounds one request when the caller's context
	// allows longer (or has no deadline).
	DefaultRequestTimeout = 10 * time.Second
	// DefaultMaxInFlight bounds the requests a server handles at once.
	DefaultMaxInFlight = 32
	// DefaultScrollPageSize is how many memories one scroll request returns.
	DefaultScrollPageSize = 256
	// maxScrollPageSize caps what a client may ask for in one page.
	maxScrollPageSize = 4096
)

// Option tunes Serve or NewClient; each says which side it affects.
type Option func(*settings)

type settings struct {
	prefix      string
	timeout     time.Duration
	maxInFlight int
	pageSize    int
}

func newSettings(opts []Option) settings {
	s := settings{
		prefix:      DefaultSubjectPrefix,
		timeout:     DefaultRequestTimeout,
		maxInFlight: DefaultMaxInFlight,
		pageSize:    DefaultScrollPageSize,
	}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	return s
}

// WithSubjectPrefix sets the subject prefix (both sides must agree). An
// invalid prefix is ignored by NewClient and rejected by Serve.
func WithSubjectPrefix(prefix string) Option {
	return func(s *settings) { s.prefix = prefix }
}

// WithRequestTimeout bounds each request of a client (default 10s); on the
// server it bounds a request that arrives without a Recollect-Timeout header.
// Values ≤ 0 keep the default.
func WithRequestTimeout(d time.Duration) Option {
	return func(s *settings) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithMaxInFlight bounds how many requests a server handles concurrently
// (default 32); further requests wait in the subscription's buffer. Values
// ≤ 0 keep the default.
func WithMaxInFlight(n int) Option {
	return func(s *settings) {
		if n > 0 {
			s.maxInFlight = n
		}
	}
}

// WithScrollPageSize sets how many memories a client asks for per scroll
// request (default 256, at most 4096). Values ≤ 0 keep the default.
func WithScrollPageSize(n int) Option {
	return func(s *settings) {
		if n > 0 {
			s.pageSize = min(n, maxScrollPageSize)
		}
	}
}
