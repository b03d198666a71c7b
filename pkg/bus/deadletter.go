package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
)

const (
	maxTermReason = 256
	maxDLQReason  = 4096
)

// deadLetter copies d to recollect.dlq.<durable> with the reason in headers.
// Its message id is derived from consumer, stream and sequence so that a
// redelivered message dead-lettered twice is stored once.
func (c *Consumer) deadLetter(ctx context.Context, d *Delivery, reason string) error {
	h := make(nats.Header, len(d.Header)+8)
	for k, vs := range d.Header {
		// Nats-* headers steer JetStream (expected stream, rollup, TTL,
		// schedules) and would misdirect the dead letter.
		if strings.HasPrefix(k, natsHeaderPrefix) {
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	h.Set(HeaderDLQReason, truncate(reason, maxDLQReason))
	h.Set(HeaderDLQSubject, d.Subject)
	h.Set(HeaderDLQStream, d.Stream)
	h.Set(HeaderDLQStreamSeq, strconv.FormatUint(d.StreamSeq, 10))
	h.Set(HeaderDLQConsumer, c.cfg.Durable)
	h.Set(HeaderDLQDeliveries, strconv.FormatUint(d.NumDelivered, 10))
	if d.MsgID != "" {
		h.Set(HeaderDLQMsgID, d.MsgID)
	}
	m := Msg{
		Subject: DLQSubject(c.cfg.Durable),
		ID:      fmt.Sprintf("dlq:%s:%s:%d", c.cfg.Durable, d.Stream, d.StreamSeq),
		Data:    d.Data,
		Header:  h,
	}
	err := c.bus.Publish(ctx, m)
	if errors.Is(err, ErrTooLarge) {
		// Better a dead letter that points at the original than none.
		m.Data = nil
		m.Header.Set(HeaderDLQTruncated, "true")
		err = c.bus.Publish(ctx, m)
	}
	if err != nil {
		return fmt.Errorf("dead letter %s seq %d: %w", d.Stream, d.StreamSeq, err)
	}
	return nil
}

// truncate makes s fit a header value: one line of at most n bytes, cut at
// a rune boundary (a newline would break the NATS header block).
func truncate(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
