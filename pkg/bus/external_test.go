package bus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startExternal runs a standalone JetStream server on a loopback port, as a
// deployment's NATS would be.
func startExternal(t *testing.T) *server.Server {
	t.Helper()
	return startExternalAt(t, -1, t.TempDir())
}

func startExternalAt(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	s, err := newExternal(t, port, dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newExternal is startExternalAt for goroutines other than the test's.
func newExternal(t *testing.T, port int, dir string) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true,
	})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(waitFor) {
		return nil, errors.New("external server not ready")
	}
	return s, nil
}

// freePort finds a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestOpenWaitsForServer(t *testing.T) {
	port, dir := freePort(t), t.TempDir()
	started := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond) // a server that comes up after us
		_, err := newExternal(t, port, dir)
		started <- err
	}()
	b := openWith(t, Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", port)})
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(ctxT(t)); err != nil {
		t.Fatalf("ready: %v", err)
	}
}

func TestOpenGivesUp(t *testing.T) {
	cfg := Config{URL: fmt.Sprintf("nats://127.0.0.1:%d", freePort(t)), ConnectTimeout: 300 * time.Millisecond}
	b, err := Open(ctxT(t), cfg, newTestLogger(t))
	if err == nil {
		b.Close()
		t.Fatal("Open succeeded with no server")
	}
}

func TestServerRestart(t *testing.T) {
	port, dir := freePort(t), t.TempDir()
	ext := startExternalAt(t, port, dir)
	b := openWith(t, Config{URL: ext.ClientURL()})
	got := make(chan string, 4)
	c, err := b.Consume(ctxT(t), ConsumerConfig{Durable: "survivor", Stream: StreamConv}, func(_ context.Context, d *Delivery) error {
		got <- d.MsgID
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	if err := b.Publish(ctxT(t), Msg{Subject: ConvSubject("acme"), ID: "before"}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if id := <-got; id != "before" {
		t.Fatalf("got %q, want before", id)
	}

	ext.Shutdown()
	ext.WaitForShutdown()
	t.Run("down", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
		defer cancel()
		if err := b.Publish(ctx, Msg{Subject: ConvSubject("acme"), ID: "lost"}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("publish while the server is down: %v, want ErrUnavailable", err)
		}
		if err := b.Ready(ctx); !errors.Is(err, ErrUnavailable) {
			t.Errorf("ready while the server is down: %v, want ErrUnavailable", err)
		}
	})

	startExternalAt(t, port, dir)
	eventually(t, "reconnected", func() bool { return b.Ready(ctxT(t)) == nil })
	if err := b.Publish(ctxT(t), Msg{Subject: ConvSubject("acme"), ID: "after"}); err != nil {
		t.Fatalf("publish after restart: %v", err)
	}
	for after := false; !after; {
		select {
		case id := <-got:
			// A publish that timed out while down may still have landed.
			if id != "after" && id != "lost" {
				t.Fatalf("unexpected delivery %q", id)
			}
			after = id == "after"
		case <-ctxT(t).Done():
			t.Fatal("no delivery after the server restarted")
		}
	}
	stopConsumer(t, c)
}

func TestConnectByURL(t *testing.T) {
	ext := startExternal(t)
	b := openWith(t, Config{URL: ext.ClientURL()})
	if b.ClientURL() != ext.ClientURL() {
		t.Errorf("ClientURL = %q, want %q", b.ClientURL(), ext.ClientURL())
	}
	if err := b.Ready(ctxT(t)); err != nil {
		t.Fatalf("ready: %v", err)
	}
	if err := b.Publish(ctxT(t), Msg{Subject: FactSubject("general"), ID: "f1", Data: []byte("fact")}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	got := make(chan *Delivery, 1)
	c, err := b.Consume(ctxT(t), ConsumerConfig{Durable: "embedder", Stream: StreamFact}, func(_ context.Context, d *Delivery) error {
		got <- d
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	d := <-got
	if string(d.Data) != "fact" || d.Stream != StreamFact || d.Subject != FactSubject("general") {
		t.Errorf("delivery %+v", d)
	}
	eventually(t, "acked", func() bool { return c.Stats().Acked == 1 })
	stopConsumer(t, c)

	// The streams and the message live on the external server.
	nc, err := nats.Connect(ext.ClientURL())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	for _, name := range []string{StreamConv, StreamFact, StreamEvent, StreamDLQ} {
		s, err := js.Stream(ctxT(t), name)
		if err != nil {
			t.Fatalf("stream %s on the external server: %v", name, err)
		}
		if name == StreamFact && s.CachedInfo().State.Msgs != 1 {
			t.Errorf("external %s holds %d messages, want 1", name, s.CachedInfo().State.Msgs)
		}
	}
}

func TestEmbeddedInProcessOnly(t *testing.T) {
	b := openTestBus(t)
	if u := b.ClientURL(); u != "" {
		t.Errorf("in-process embedded server has client URL %q, want none", u)
	}
	if err := b.Ready(ctxT(t)); err != nil {
		t.Errorf("ready: %v", err)
	}
}
