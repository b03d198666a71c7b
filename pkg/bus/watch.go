package bus

import (
	"fmt"

	"github.com/nats-io/nats.go"
)

// Watch calls fn with the data of every message published on subject
// (wildcards allowed) from now on, JetStream publishes included, until the
// returned stop is called. It is a plain NATS subscription: at-most-once,
// nothing is replayed and a message published while the connection is
// down is missed, so use it for notifications whose loss only costs time
// (a learn waiting for its memory also polls the store). fn runs on one
// goroutine per watch, in publish order; it must not block.
func (b *Bus) Watch(subject string, fn func(data []byte)) (stop func() error, err error) {
	sub, err := b.nc.Subscribe(subject, func(m *nats.Msg) { fn(m.Data) })
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", subject, classify(err))
	}
	return sub.Unsubscribe, nil
}
