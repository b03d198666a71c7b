package bus

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

const waitFor = 15 * time.Second

// testLog buffers logs and prints them only when the test fails, so late
// log lines from goroutines never touch a finished test.
type testLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func newTestLogger(t testing.TB) *slog.Logger {
	l := &testLog{}
	t.Cleanup(func() {
		if t.Failed() {
			l.mu.Lock()
			t.Log("logs:\n" + l.buf.String())
			l.mu.Unlock()
		}
	})
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// openTestBus opens a bus on its own embedded server in a fresh directory.
func openTestBus(t testing.TB, mutate ...func(*Config)) *Bus {
	t.Helper()
	cfg := Config{DataDir: t.TempDir()}
	for _, m := range mutate {
		m(&cfg)
	}
	return openWith(t, cfg)
}

func openWith(t testing.TB, cfg Config) *Bus {
	t.Helper()
	log := newTestLogger(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	b, err := Open(ctx, cfg, log)
	if err != nil {
		t.Fatalf("open bus: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close bus: %v", err)
		}
	})
	return b
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	t.Cleanup(cancel)
	return ctx
}

// fastConsumer is a consumer config for tests: short timers, tiny backoff.
func fastConsumer(durable string) ConsumerConfig {
	return ConsumerConfig{
		Durable:        durable,
		Stream:         StreamConv,
		FilterSubjects: []string{AllConv},
		MaxDeliver:     5,
		AckWait:        30 * time.Second,
		HandlerTimeout: 10 * time.Second,
		Backoff:        func(uint64) time.Duration { return 10 * time.Millisecond },
	}
}

func consumerInfo(t testing.TB, b *Bus, stream, durable string) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := b.JetStream().Consumer(ctxT(t), stream, durable)
	if err != nil {
		t.Fatalf("consumer %s: %v", durable, err)
	}
	info, err := c.Info(ctxT(t))
	if err != nil {
		t.Fatalf("consumer info %s: %v", durable, err)
	}
	return info
}

func streamMsgs(t testing.TB, b *Bus, stream string) uint64 {
	t.Helper()
	s, err := b.JetStream().Stream(ctxT(t), stream)
	if err != nil {
		t.Fatalf("stream %s: %v", stream, err)
	}
	info, err := s.Info(ctxT(t))
	if err != nil {
		t.Fatalf("stream info %s: %v", stream, err)
	}
	return info.State.Msgs
}

// settled reports whether the consumer has nothing delivered-but-unsettled
// and nothing left to deliver.
func settled(t testing.TB, b *Bus, stream, durable string) bool {
	info := consumerInfo(t, b, stream, durable)
	return info.NumAckPending == 0 && info.NumPending == 0 && info.NumRedelivered == 0
}

// collector records deliveries by message id.
type collector struct {
	mu   sync.Mutex
	seen map[string]int
	all  []Delivery
}

func newCollector() *collector { return &collector{seen: map[string]int{}} }

func (c *collector) add(d *Delivery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[d.MsgID]++
	c.all = append(c.all, *d)
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.all)
}

func (c *collector) ids() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.seen))
	for k, v := range c.seen {
		out[k] = v
	}
	return out
}

func msgs(tenant string, n int, prefix string) []Msg {
	out := make([]Msg, n)
	for i := range out {
		id := fmt.Sprintf("%s-%d", prefix, i)
		out[i] = Msg{Subject: ConvSubject(tenant), ID: EventMsgID(tenant, id), Data: []byte(`{"id":"` + id + `"}`)}
	}
	return out
}

func stopConsumer(t testing.TB, c *Consumer) {
	t.Helper()
	if err := c.Stop(ctxT(t)); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
