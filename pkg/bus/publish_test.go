package bus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestDuplicateMsgIDStoredOnce(t *testing.T) {
	tests := []struct {
		name    string
		publish func(t *testing.T, b *Bus)
		want    uint64
	}{
		{"publish twice", func(t *testing.T, b *Bus) {
			m := Msg{Subject: ConvSubject("acme"), ID: EventMsgID("acme", "e1"), Data: []byte("x")}
			for range 2 {
				if err := b.Publish(ctxT(t), m); err != nil {
					t.Fatalf("publish: %v", err)
				}
			}
		}, 1},
		{"batch retried whole", func(t *testing.T, b *Bus) {
			batch := msgs("acme", 10, "b")
			for range 3 {
				if err := b.PublishBatch(ctxT(t), batch); err != nil {
					t.Fatalf("publish batch: %v", err)
				}
			}
		}, 10},
		{"same id in one batch", func(t *testing.T, b *Bus) {
			batch := append(msgs("acme", 3, "c"), msgs("acme", 3, "c")...)
			if err := b.PublishBatch(ctxT(t), batch); err != nil {
				t.Fatalf("publish batch: %v", err)
			}
		}, 3},
		{"same event id, two tenants", func(t *testing.T, b *Bus) {
			for _, tenant := range []string{"acme", "umbrella"} {
				if err := b.Publish(ctxT(t), Msg{Subject: ConvSubject(tenant), ID: EventMsgID(tenant, "e1")}); err != nil {
					t.Fatalf("publish: %v", err)
				}
			}
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := openTestBus(t)
			tt.publish(t, b)
			if got := streamMsgs(t, b, StreamConv); got != tt.want {
				t.Errorf("stream holds %d messages, want %d", got, tt.want)
			}
		})
	}
}

func TestPublishRefusedWhenFull(t *testing.T) {
	b := openTestBus(t, func(c *Config) { c.MaxBytes = 8 << 10; c.MaxMsgSize = 1 << 10 })
	payload := bytes.Repeat([]byte("x"), 900)
	var err error
	n := 0
	for ; n < 100; n++ {
		err = b.Publish(ctxT(t), Msg{Subject: ConvSubject("acme"), ID: fmt.Sprint(n), Data: payload})
		if err != nil {
			break
		}
	}
	if n == 0 || n == 100 {
		t.Fatalf("stored %d messages before refusing, want some but not all", n)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("publish to a full stream: %v, want ErrUnavailable", err)
	}
	// DiscardNew: the oldest unprocessed message is still there.
	s, serr := b.JetStream().Stream(ctxT(t), StreamConv)
	if serr != nil {
		t.Fatalf("stream: %v", serr)
	}
	first, gerr := s.GetMsg(ctxT(t), 1)
	if gerr != nil || first.Header.Get(jetstream.MsgIDHeader) != "0" {
		t.Fatalf("first message after refusal: %v %v, want id 0 kept", first, gerr)
	}
	if err := b.PublishBatch(ctxT(t), []Msg{{Subject: ConvSubject("acme"), ID: "batch", Data: payload}}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("batch publish to a full stream: %v, want ErrUnavailable", err)
	}
	if err := b.Publish(ctxT(t), Msg{Subject: ConvSubject("acme"), ID: "big", Data: bytes.Repeat([]byte("x"), 2<<10)}); !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnavailable) {
		t.Errorf("oversized publish: %v, want ErrTooLarge only", err)
	}
}

func TestPublishUnavailableWithoutServer(t *testing.T) {
	b := openTestBus(t)
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	err := b.Publish(ctxT(t), Msg{Subject: ConvSubject("acme"), ID: "1"})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("publish on a closed bus: %v, want ErrUnavailable", err)
	}
	if err := b.Ready(ctxT(t)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("ready on a closed bus: %v, want ErrUnavailable", err)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		unavailable bool
		tooLarge    bool
	}{
		{"no responders", nats.ErrNoResponders, true, false},
		{"no stream response", jetstream.ErrNoStreamResponse, true, false},
		{"deadline", context.DeadlineExceeded, true, false},
		{"closed", nats.ErrConnectionClosed, true, false},
		{"stream full", fmt.Errorf("nats: %w", &jetstream.APIError{Code: 503, ErrorCode: 10077, Description: "maximum bytes exceeded"}), true, false},
		{"storage", fmt.Errorf("nats: %w", &jetstream.APIError{Code: 500, ErrorCode: 10047}), true, false},
		{"msg too big", fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, ErrorCode: 10054}), false, true},
		{"max payload", nats.ErrMaxPayload, false, true},
		{"bad request", fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, ErrorCode: 10003}), false, false},
		{"caller cancelled", context.Canceled, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(tt.err)
			if !errors.Is(got, tt.err) {
				t.Errorf("classify lost the cause: %v", got)
			}
			if errors.Is(got, ErrUnavailable) != tt.unavailable || errors.Is(got, ErrTooLarge) != tt.tooLarge {
				t.Errorf("classify(%v) = %v; unavailable=%v tooLarge=%v", tt.err, got, tt.unavailable, tt.tooLarge)
			}
		})
	}
}

func TestPermanent(t *testing.T) {
	base := errors.New("bad json")
	p := Permanent(base)
	if !IsPermanent(p) || !errors.Is(p, base) || p.Error() != "bad json" {
		t.Errorf("Permanent(base) = %v; permanent=%v", p, IsPermanent(p))
	}
	if !IsPermanent(fmt.Errorf("decode: %w", p)) {
		t.Error("wrapping a permanent error lost the mark")
	}
	if IsPermanent(base) || Permanent(nil) != nil {
		t.Error("plain errors are not permanent; Permanent(nil) is nil")
	}
}
