package usage

import (
	"log/slog"
	"time"
)

// Defaults of Buffered.
const (
	DefaultCapacity      = 10_000
	DefaultBatchSize     = 1_000
	DefaultFlushInterval = time.Second
	DefaultMinBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultWriteTimeout  = 10 * time.Second
	DefaultCloseTimeout  = 5 * time.Second
)

// Option tunes a Buffered. Values out of range are ignored, so the default
// stays in force.
type Option func(*options)

type options struct {
	capacity      int
	batchSize     int
	flushInterval time.Duration
	minBackoff    time.Duration
	maxBackoff    time.Duration
	writeTimeout  time.Duration
	closeTimeout  time.Duration
	now           func() time.Time
	log           *slog.Logger
}

func defaultOptions() options {
	return options{
		capacity:      DefaultCapacity,
		batchSize:     DefaultBatchSize,
		flushInterval: DefaultFlushInterval,
		minBackoff:    DefaultMinBackoff,
		maxBackoff:    DefaultMaxBackoff,
		writeTimeout:  DefaultWriteTimeout,
		closeTimeout:  DefaultCloseTimeout,
		now:           time.Now,
		log:           slog.New(slog.DiscardHandler),
	}
}

// WithCapacity bounds how many records wait for the backend; beyond it new
// records are dropped and counted.
func WithCapacity(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.capacity = n
		}
	}
}

// WithBatchSize sets the most records per Write; a full batch is written
// without waiting for the flush interval.
func WithBatchSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.batchSize = n
		}
	}
}

// WithFlushInterval sets how often buffered records are written.
func WithFlushInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.flushInterval = d
		}
	}
}

// WithRetryBackoff sets the wait after a failed write, doubling from min up
// to max while the backend keeps failing.
func WithRetryBackoff(minWait, maxWait time.Duration) Option {
	return func(o *options) {
		if minWait > 0 && maxWait >= minWait {
			o.minBackoff, o.maxBackoff = minWait, maxWait
		}
	}
}

// WithWriteTimeout bounds one Write to the backend.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.writeTimeout = d
		}
	}
}

// WithCloseTimeout bounds the final flush in Close.
func WithCloseTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.closeTimeout = d
		}
	}
}

// WithClock sets the clock that stamps records recorded without a time.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// WithLogger sets where write failures and drops are logged.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}
