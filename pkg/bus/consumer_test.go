package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestPublishConsumeAck(t *testing.T) {
	b := openTestBus(t)
	batch := msgs("acme", 5, "e")
	batch[0].Header = nats.Header{"X-Custom": []string{"yes"}}
	if err := b.PublishBatch(ctxT(t), batch); err != nil {
		t.Fatalf("publish: %v", err)
	}
	col := newCollector()
	cc := fastConsumer("ack")
	cc.Concurrency = 2
	c, err := b.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error {
		col.add(d)
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "all acked", func() bool { return c.Stats().Acked == 5 })
	eventually(t, "consumer settled", func() bool { return settled(t, b, StreamConv, "ack") })
	stopConsumer(t, c)

	ids := col.ids()
	for _, m := range batch {
		if ids[m.ID] != 1 {
			t.Errorf("message %s handled %d times, want 1", m.ID, ids[m.ID])
		}
	}
	for _, d := range col.all {
		if d.Subject != ConvSubject("acme") || d.Stream != StreamConv || d.NumDelivered != 1 || d.StreamSeq == 0 || d.Timestamp.IsZero() {
			t.Errorf("delivery metadata: %+v", d)
		}
		if d.MsgID == batch[0].ID && d.Header.Get("X-Custom") != "yes" {
			t.Errorf("custom header lost: %v", d.Header)
		}
		if want := `{"id":"` + strings.TrimPrefix(d.MsgID, "acme:") + `"}`; string(d.Data) != want {
			t.Errorf("data = %s, want %s", d.Data, want)
		}
	}
	if st := c.Stats(); st.Handled != 5 || st.Naked != 0 || st.DeadLettered != 0 || st.InFlight != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestTransientErrorRedelivered(t *testing.T) {
	b := openTestBus(t)
	if err := b.Publish(ctxT(t), msgs("acme", 1, "t")[0]); err != nil {
		t.Fatalf("publish: %v", err)
	}
	var mu sync.Mutex
	var deliveries, backoffs []uint64
	cc := fastConsumer("retry")
	cc.Backoff = func(n uint64) time.Duration {
		mu.Lock()
		backoffs = append(backoffs, n)
		mu.Unlock()
		return 10 * time.Millisecond
	}
	c, err := b.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		deliveries = append(deliveries, d.NumDelivered)
		if d.NumDelivered < 3 {
			return errors.New("model timeout")
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "acked after retries", func() bool { return c.Stats().Acked == 1 })
	eventually(t, "consumer settled", func() bool {
		info := consumerInfo(t, b, StreamConv, "retry")
		return info.NumAckPending == 0 && info.NumPending == 0
	})
	stopConsumer(t, c)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(deliveries, []uint64{1, 2, 3}) {
		t.Errorf("deliveries = %v, want [1 2 3]", deliveries)
	}
	if !slices.Equal(backoffs, []uint64{1, 2}) {
		t.Errorf("backoff asked for %v, want [1 2]", backoffs)
	}
	if st := c.Stats(); st.Naked != 2 || st.Acked != 1 || st.DeadLettered != 0 {
		t.Errorf("stats = %+v", st)
	}
	if n := streamMsgs(t, b, StreamDLQ); n != 0 {
		t.Errorf("dlq holds %d messages, want 0", n)
	}
}

func TestDeadLetter(t *testing.T) {
	tests := []struct {
		name       string
		maxDeliver int
		handler    Handler
		wantCalls  int64
		wantReason string
		wantClass  DeadLetterReason
	}{
		{"permanent error", 5, func(context.Context, *Delivery) error {
			return fmt.Errorf("decode event: %w", Permanent(errors.New("bad json\nline two")))
		}, 1, "decode event: bad json line two", ReasonPermanent},
		{"panic", 5, func(context.Context, *Delivery) error {
			panic("boom")
		}, 1, "handler panic: boom", ReasonPanic},
		{"max deliver exhausted", 3, func(context.Context, *Delivery) error {
			return errors.New("still failing")
		}, 3, "max deliver 3 reached: still failing", ReasonMaxDeliver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := openTestBus(t)
			m := msgs("acme", 1, "d")[0]
			m.Header = nats.Header{"X-Origin": []string{"agent-7"}}
			if err := b.Publish(ctxT(t), m); err != nil {
				t.Fatalf("publish: %v", err)
			}
			var calls atomic.Int64
			cc := fastConsumer("dl")
			cc.MaxDeliver = tt.maxDeliver
			classes := make(chan DeadLetterReason, 4)
			cc.OnDeadLetter = func(r DeadLetterReason) { classes <- r }
			c, err := b.Consume(ctxT(t), cc, func(ctx context.Context, d *Delivery) error {
				calls.Add(1)
				return tt.handler(ctx, d)
			}, nil)
			if err != nil {
				t.Fatalf("consume: %v", err)
			}
			eventually(t, "dead letter", func() bool { return streamMsgs(t, b, StreamDLQ) == 1 })
			// Termed counts as acknowledged: nothing pending, no redelivery.
			eventually(t, "message termed", func() bool {
				info := consumerInfo(t, b, StreamConv, "dl")
				return info.NumAckPending == 0 && info.AckFloor.Stream == 1
			})
			stopConsumer(t, c)
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("handler called %d times, want %d", got, tt.wantCalls)
			}
			if st := c.Stats(); st.DeadLettered != 1 || st.Acked != 0 {
				t.Errorf("stats = %+v", st)
			}
			close(classes)
			var got []DeadLetterReason
			for r := range classes {
				got = append(got, r)
			}
			if !slices.Equal(got, []DeadLetterReason{tt.wantClass}) {
				t.Errorf("OnDeadLetter got %v, want [%s]", got, tt.wantClass)
			}

			s, err := b.JetStream().Stream(ctxT(t), StreamDLQ)
			if err != nil {
				t.Fatalf("dlq stream: %v", err)
			}
			dl, err := s.GetLastMsgForSubject(ctxT(t), DLQSubject("dl"))
			if err != nil {
				t.Fatalf("dead letter: %v", err)
			}
			if string(dl.Data) != string(m.Data) {
				t.Errorf("dead letter data = %s, want %s", dl.Data, m.Data)
			}
			want := map[string]string{
				HeaderDLQReason:     tt.wantReason,
				HeaderDLQSubject:    ConvSubject("acme"),
				HeaderDLQStream:     StreamConv,
				HeaderDLQStreamSeq:  "1",
				HeaderDLQConsumer:   "dl",
				HeaderDLQDeliveries: strconv.FormatInt(tt.wantCalls, 10),
				HeaderDLQMsgID:      m.ID,
				"X-Origin":          "agent-7",
				headerNatsMsgID:     "dlq:dl:" + StreamConv + ":1",
			}
			for k, v := range want {
				if got := dl.Header.Get(k); got != v {
					t.Errorf("dead letter header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestStopDrainsInFlight(t *testing.T) {
	for _, concurrency := range []int{1, 3} {
		t.Run(fmt.Sprintf("concurrency %d", concurrency), func(t *testing.T) {
			b := openTestBus(t)
			const total = 8
			if err := b.PublishBatch(ctxT(t), msgs("acme", total, "s")); err != nil {
				t.Fatalf("publish: %v", err)
			}
			started := make(chan string, total)
			release := make(chan struct{})
			first := newCollector()
			cc := fastConsumer("drain")
			cc.Concurrency = concurrency
			c, err := b.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error {
				started <- d.MsgID
				<-release
				first.add(d)
				return nil
			}, nil)
			if err != nil {
				t.Fatalf("consume: %v", err)
			}
			for range concurrency {
				<-started
			}
			stopped := make(chan error, 1)
			go func() { stopped <- c.Stop(ctxT(t)) }()
			<-c.pullCtx.Done() // Stop has begun: no new pulls from here on
			select {
			case err := <-stopped:
				t.Fatalf("Stop returned (%v) while handlers were still running", err)
			default:
			}
			close(release)
			if err := <-stopped; err != nil {
				t.Fatalf("stop: %v", err)
			}
			if st := c.Stats(); st.Acked != uint64(concurrency) || st.Handled != uint64(concurrency) || st.InFlight != 0 {
				t.Fatalf("after stop: stats %+v, want exactly the %d in-flight messages handled and acked", st, concurrency)
			}
			if info := consumerInfo(t, b, StreamConv, "drain"); info.NumAckPending != 0 {
				t.Fatalf("after stop: %d messages delivered but not acked", info.NumAckPending)
			}

			// A restarted consumer gets every other message at once: none
			// is stranded waiting out its AckWait.
			second := newCollector()
			c2, err := b.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error {
				second.add(d)
				return nil
			}, nil)
			if err != nil {
				t.Fatalf("consume again: %v", err)
			}
			eventually(t, "the rest handled", func() bool { return second.count() == total-concurrency })
			stopConsumer(t, c2)
			all := first.ids()
			for id, n := range second.ids() {
				all[id] += n
			}
			for _, m := range msgs("acme", total, "s") {
				if all[m.ID] != 1 {
					t.Errorf("message %s handled %d times across restart, want 1", m.ID, all[m.ID])
				}
			}
			for _, d := range second.all {
				if d.NumDelivered != 1 {
					t.Errorf("message %s was delivered before (%d)", d.MsgID, d.NumDelivered)
				}
			}
		})
	}
}

func TestStopGivesUpAtDeadline(t *testing.T) {
	b := openTestBus(t)
	if err := b.Publish(ctxT(t), msgs("acme", 1, "g")[0]); err != nil {
		t.Fatalf("publish: %v", err)
	}
	started := make(chan struct{})
	c, err := b.Consume(ctxT(t), fastConsumer("abort"), func(ctx context.Context, _ *Delivery) error {
		close(started)
		<-ctx.Done() // a handler that only ends when told to
		return ctx.Err()
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	<-started
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Stop(expired); !errors.Is(err, context.Canceled) {
		t.Fatalf("stop with an expired ctx: %v, want context.Canceled", err)
	}
	<-c.Done()
	// The aborted message is handed back at once, not after AckWait.
	got := make(chan uint64, 1)
	c2, err := b.Consume(ctxT(t), fastConsumer("abort"), func(_ context.Context, d *Delivery) error {
		got <- d.NumDelivered
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume again: %v", err)
	}
	select {
	case n := <-got:
		if n != 2 {
			t.Errorf("redelivery count %d, want 2", n)
		}
	case <-ctxT(t).Done():
		t.Fatal("aborted message was not redelivered")
	}
	stopConsumer(t, c2)
}

func TestReopenKeepsMessages(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir}
	b := openWith(t, cfg)
	cc := fastConsumer("durable")
	// Stopping the first consumer can leave its last pull request alive on
	// the server until it expires; a message published meanwhile is
	// delivered to that dead inbox and comes back only after AckWait. Keep
	// AckWait short so that redelivery falls inside the test's deadline.
	cc.HandlerTimeout, cc.AckWait = time.Second, 2*time.Second
	all := msgs("acme", 3, "r")
	if err := b.Publish(ctxT(t), all[0]); err != nil {
		t.Fatalf("publish: %v", err)
	}
	first := newCollector()
	c, err := b.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error { first.add(d); return nil }, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "first acked", func() bool { return c.Stats().Acked == 1 })
	stopConsumer(t, c)
	if err := b.PublishBatch(ctxT(t), all[1:]); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	b2 := openWith(t, cfg)
	if n := streamMsgs(t, b2, StreamConv); n != 3 {
		t.Fatalf("after reopen the stream holds %d messages, want 3", n)
	}
	second := newCollector()
	c2, err := b2.Consume(ctxT(t), cc, func(_ context.Context, d *Delivery) error { second.add(d); return nil }, nil)
	if err != nil {
		t.Fatalf("consume after reopen: %v", err)
	}
	eventually(t, "the rest handled", func() bool { return second.count() == 2 })
	eventually(t, "consumer settled", func() bool { return settled(t, b2, StreamConv, "durable") })
	stopConsumer(t, c2)
	ids := second.ids()
	if ids[all[0].ID] != 0 || ids[all[1].ID] != 1 || ids[all[2].ID] != 1 {
		t.Errorf("after reopen handled %v, want only %s and %s once", ids, all[1].ID, all[2].ID)
	}
	// A resend within the duplicate window is still recognised after reopen.
	if err := b2.Publish(ctxT(t), all[0]); err != nil {
		t.Fatalf("republish: %v", err)
	}
	if n := streamMsgs(t, b2, StreamConv); n != 3 {
		t.Errorf("resend after reopen stored again: %d messages", n)
	}
}

// With a heartbeat, a handler may run far past AckWait without its message
// being handed to anyone else: the server hears it is still in progress.
func TestHeartbeatHoldsMessagePastAckWait(t *testing.T) {
	b := openTestBus(t)
	if err := b.PublishBatch(ctxT(t), msgs("acme", 1, "long")); err != nil {
		t.Fatalf("publish: %v", err)
	}
	cc := fastConsumer("heartbeat")
	cc.AckWait, cc.Heartbeat, cc.HandlerTimeout, cc.Concurrency = 2*time.Second, 250*time.Millisecond, time.Minute, 2
	var calls atomic.Int32
	c, err := b.Consume(ctxT(t), cc, func(ctx context.Context, d *Delivery) error {
		calls.Add(1)
		// Three ack waits: without the heartbeat the server would have
		// handed the message to the second handler slot meanwhile.
		select {
		case <-time.After(3 * cc.AckWait):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "acked", func() bool { return c.Stats().Acked == 1 })
	stopConsumer(t, c)
	if n := calls.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1 (redelivered while in progress)", n)
	}
	if info := consumerInfo(t, b, StreamConv, "heartbeat"); info.NumRedelivered != 0 {
		t.Errorf("redelivered = %d, want 0", info.NumRedelivered)
	}
}

func TestConsumerConfigRejected(t *testing.T) {
	b := openTestBus(t)
	ok := func(context.Context, *Delivery) error { return nil }
	tests := []struct {
		name   string
		mutate func(*ConsumerConfig)
	}{
		{"ack wait not above handler timeout", func(c *ConsumerConfig) { c.AckWait = c.HandlerTimeout }},
		{"heartbeat not under half of ack wait", func(c *ConsumerConfig) { c.AckWait, c.Heartbeat = 2*time.Second, time.Second }},
		{"negative heartbeat", func(c *ConsumerConfig) { c.Heartbeat = -time.Second }},
		{"no durable", func(c *ConsumerConfig) { c.Durable = "" }},
		{"dotted durable", func(c *ConsumerConfig) { c.Durable = "a.b" }},
		{"no stream", func(c *ConsumerConfig) { c.Stream = "" }},
		{"negative concurrency", func(c *ConsumerConfig) { c.Concurrency = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := fastConsumer("bad")
			tt.mutate(&cc)
			if c, err := b.Consume(ctxT(t), cc, ok, nil); err == nil {
				stopConsumer(t, c)
				t.Fatal("Consume accepted a bad config")
			}
		})
	}
}

// A message that comes back after its last allowed delivery (its handler
// crashed the process each time) is dead-lettered without running it again.
func TestDeliveredPastMaxDeliverIsDeadLettered(t *testing.T) {
	b := openTestBus(t)
	cc := fastConsumer("crashy")
	cc.MaxDeliver = 2
	c, err := b.Consume(ctxT(t), cc, func(context.Context, *Delivery) error { return nil }, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	stopConsumer(t, c) // only to create the durable
	if err := b.Publish(ctxT(t), msgs("acme", 1, "crash")[0]); err != nil {
		t.Fatalf("publish: %v", err)
	}
	// Simulate two crashed attempts: delivered, never settled by a handler.
	raw, err := b.JetStream().Consumer(ctxT(t), StreamConv, "crashy")
	if err != nil {
		t.Fatalf("consumer: %v", err)
	}
	for i := range cc.MaxDeliver {
		m, err := raw.Next()
		if err != nil {
			t.Fatalf("raw delivery %d: %v", i+1, err)
		}
		if err := m.Nak(); err != nil {
			t.Fatalf("nak: %v", err)
		}
	}
	var calls atomic.Int64
	var class atomic.Value
	cc.OnDeadLetter = func(r DeadLetterReason) { class.Store(r) }
	c2, err := b.Consume(ctxT(t), cc, func(context.Context, *Delivery) error { calls.Add(1); return nil }, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "dead letter", func() bool { return c2.Stats().DeadLettered == 1 })
	stopConsumer(t, c2)
	if calls.Load() != 0 {
		t.Errorf("handler ran %d times past max deliver, want 0", calls.Load())
	}
	if n := streamMsgs(t, b, StreamDLQ); n != 1 {
		t.Errorf("dlq holds %d messages, want 1", n)
	}
	if got, _ := class.Load().(DeadLetterReason); got != ReasonNoOutcome {
		t.Errorf("dead letter reason class = %q, want %q", got, ReasonNoOutcome)
	}
}
