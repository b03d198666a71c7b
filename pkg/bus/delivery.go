package bus

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Delivery is one delivery of a stored message to a handler.
type Delivery struct {
	Subject      string
	Data         []byte
	Header       nats.Header
	MsgID        string // Nats-Msg-Id, if the publisher set one
	NumDelivered uint64 // 1 on the first delivery
	Stream       string
	StreamSeq    uint64
	Timestamp    time.Time // when the stream stored it

	msg jetstream.Msg
}

// InProgress tells the server the handler is still working, resetting the
// redelivery timer (AckWait); call it during long model calls.
func (d *Delivery) InProgress() error {
	if d.msg == nil {
		return nil // a Delivery built by a test, not received
	}
	return d.msg.InProgress()
}

// Handler processes one delivery. nil acks it; an error retries it later
// unless marked Permanent, which dead-letters it. Handlers must be
// idempotent: redelivery is normal.
type Handler func(ctx context.Context, d *Delivery) error
