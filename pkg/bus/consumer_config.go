package bus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Consumer defaults.
const (
	DefaultMaxDeliver     = 10
	DefaultAckWait        = 60 * time.Second
	DefaultHandlerTimeout = 30 * time.Second
	backoffBase           = time.Second
	backoffMax            = 2 * time.Minute
	// deadLetterSlack lets the server deliver past MaxDeliver so that a
	// message whose dead-lettering failed (or whose handler crashed the
	// process) comes back and is dead-lettered rather than stranded.
	deadLetterSlack = 10
)

// ConsumerConfig describes a durable pull consumer and its handlers.
type ConsumerConfig struct {
	Durable        string   // consumer name, also the DLQ subject token
	Stream         string   // e.g. StreamConv
	FilterSubjects []string // empty: the whole stream
	// StartTime, if set, starts a new consumer at the first message stored
	// at or after it instead of at the stream's start.
	StartTime *time.Time

	MaxDeliver     int           // deliveries before dead-lettering (default 10)
	AckWait        time.Duration // redelivery timer (default 60s), > HandlerTimeout unless Heartbeat is set
	HandlerTimeout time.Duration // handler ctx deadline (default 30s)
	// Heartbeat, if set, tells the server every Heartbeat that a running
	// handler is still working (InProgress), so AckWait can be far shorter
	// than HandlerTimeout: a message held by a process that died comes
	// back after AckWait, not after the longest a handler may run. It
	// must be under half of AckWait.
	Heartbeat   time.Duration
	Concurrency int // handlers running at once (default 1)
	// Backoff is the redelivery delay after the n-th failed delivery
	// (default DefaultBackoff).
	Backoff       func(numDelivered uint64) time.Duration
	MaxAckPending int // server-side cap of unacknowledged messages (0: server default)
	// OnOutcome, if set, is called after each delivery is settled, e.g. to
	// feed a Prometheus histogram.
	OnOutcome func(o Outcome, took time.Duration)
	// OnDeadLetter, if set, is called once for each message copied to the
	// DLQ, with the class of its reason (a bounded set, fit for a metric
	// label; the free text is in the dead letter's header).
	OnDeadLetter func(reason DeadLetterReason)
}

// DeadLetterReason classifies why a message was dead-lettered.
type DeadLetterReason string

const (
	// ReasonPermanent: the handler returned a Permanent error.
	ReasonPermanent DeadLetterReason = "permanent"
	// ReasonPanic: the handler panicked.
	ReasonPanic DeadLetterReason = "panic"
	// ReasonMaxDeliver: the handler failed on the last allowed delivery.
	ReasonMaxDeliver DeadLetterReason = "max_deliver"
	// ReasonNoOutcome: delivered past MaxDeliver without a settled outcome
	// (the handler crashed the process, or dead-lettering failed before).
	ReasonNoOutcome DeadLetterReason = "no_outcome"
)

// Outcome is how a delivery was settled.
type Outcome string

const (
	OutcomeAck        Outcome = "ack"
	OutcomeNak        Outcome = "nak"         // redelivered later
	OutcomeDeadLetter Outcome = "dead_letter" // copied to the DLQ and terminated
)

// DefaultBackoff doubles from 1s up to 2min, minus up to 20% jitter so that
// failures of many messages at once do not retry in lockstep.
func DefaultBackoff(numDelivered uint64) time.Duration {
	d := backoffBase
	for i := uint64(1); i < numDelivered && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	return d - rand.N(d/5+1)
}

func (c ConsumerConfig) withDefaults() ConsumerConfig {
	if c.MaxDeliver == 0 {
		c.MaxDeliver = DefaultMaxDeliver
	}
	if c.AckWait == 0 {
		c.AckWait = DefaultAckWait
	}
	if c.HandlerTimeout == 0 {
		c.HandlerTimeout = DefaultHandlerTimeout
	}
	if c.Concurrency == 0 {
		c.Concurrency = 1
	}
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	return c
}

// validate checks a config that went through withDefaults.
func (c ConsumerConfig) validate() error {
	var errs []error
	if c.Durable == "" || strings.ContainsAny(c.Durable, ".*> \t\r\n/\\") {
		errs = append(errs, fmt.Errorf("durable %q: must be non-empty without dots, wildcards, slashes or spaces", c.Durable))
	}
	if c.Stream == "" {
		errs = append(errs, errors.New("stream is required"))
	}
	if c.MaxDeliver < 1 {
		errs = append(errs, fmt.Errorf("max deliver %d: must be at least 1", c.MaxDeliver))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("concurrency %d: must be at least 1", c.Concurrency))
	}
	switch {
	case c.HandlerTimeout <= 0 || c.AckWait <= 0:
		errs = append(errs, fmt.Errorf("ack wait %s and handler timeout %s must be positive", c.AckWait, c.HandlerTimeout))
	case c.Heartbeat < 0 || c.Heartbeat > 0 && 2*c.Heartbeat >= c.AckWait:
		errs = append(errs, fmt.Errorf("heartbeat %s must be under half of ack wait %s", c.Heartbeat, c.AckWait))
	case c.Heartbeat == 0 && c.AckWait <= c.HandlerTimeout:
		errs = append(errs, fmt.Errorf("ack wait %s must exceed handler timeout %s unless a heartbeat is set", c.AckWait, c.HandlerTimeout))
	}
	if c.MaxAckPending < 0 {
		errs = append(errs, fmt.Errorf("max ack pending %d: must not be negative", c.MaxAckPending))
	}
	for _, f := range c.FilterSubjects {
		if f == "" {
			errs = append(errs, errors.New("empty filter subject"))
		}
	}
	return errors.Join(errs...)
}
