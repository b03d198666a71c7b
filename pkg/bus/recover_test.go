package bus

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/internal/tmpfs"
)

// fakeFree stands in for statfs so that a full disk can be declared and
// ended without root.
type fakeFree struct{ bytes atomic.Uint64 }

func (f *fakeFree) free(string) (uint64, bool) { return f.bytes.Load(), true }

// TestRestartAfterFullDiskKeepsEverything declares a full disk and its end
// and checks JetStream is restarted in-process: the bus turns ready again,
// consumers and a key-value watch resume, the dedup window survives (a
// resend of stored ids is stored once) and every message reaches the
// consumer exactly once.
func TestRestartAfterFullDiskKeepsEverything(t *testing.T) {
	disk := &fakeFree{}
	disk.bytes.Store(1 << 30)
	b := openTestBus(t, func(c *Config) {
		c.freeBytes = disk.free
		c.DiskCheckInterval = 10 * time.Millisecond
		c.EmbeddedListen = "127.0.0.1:0" // the reload must keep the listener
	})
	url := b.ClientURL()
	ctx, cancel := context.WithTimeout(context.Background(), 4*waitFor)
	defer cancel()
	col := newCollector()
	c, err := b.Consume(ctx, fastConsumer("df"), func(_ context.Context, d *Delivery) error {
		col.add(d)
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	kv, err := b.JetStream().CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "df_state"})
	if err != nil {
		t.Fatalf("kv: %v", err)
	}
	watch, err := kv.Watch(ctx, "k.>")
	if err != nil {
		t.Fatalf("kv watch: %v", err)
	}
	defer watch.Stop()
	seenKeys := make(chan string, 16)
	go func() {
		for e := range watch.Updates() {
			if e != nil {
				seenKeys <- e.Key()
			}
		}
	}()

	first := msgs("acme", 10, "a")
	if err := b.PublishBatch(ctx, first); err != nil {
		t.Fatalf("publish before: %v", err)
	}
	if _, err := kv.Put(ctx, "k.before", []byte("1")); err != nil {
		t.Fatalf("kv put: %v", err)
	}
	eventually(t, "first batch handled", func() bool { return col.count() == 10 })
	eventually(t, "consumer settled", func() bool { return settled(t, b, StreamConv, "df") })

	disk.bytes.Store(1000)
	err = ready(b)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("ready on a full disk: %v, want an error naming the full disk", err)
	}
	eventually(t, "the check notes the full disk", b.diskHit.Load)
	if n := b.DiskRecoveries(); n != 0 {
		t.Fatalf("%d restarts while the disk is full", n)
	}
	// Space back, but not enough: still waiting, and readiness says so.
	disk.bytes.Store(b.lowDiskBytes() + 1)
	if err := ready(b); err == nil || !strings.Contains(err.Error(), "restarted in-process once") {
		t.Fatalf("ready with a little space back: %v", err)
	}

	disk.bytes.Store(1 << 30)
	eventually(t, "a restart", func() bool { return b.DiskRecoveries() > 0 })
	if err := ready(b); err != nil {
		t.Fatalf("not ready after the restart: %v", err)
	}
	if n := b.DiskRecoveries(); n != 1 {
		t.Fatalf("%d restarts, want 1", n)
	}

	// Resending the first batch stores nothing new; new messages flow.
	second := msgs("acme", 20, "a")
	if err := b.PublishBatch(ctx, second); err != nil {
		t.Fatalf("publish after: %v", err)
	}
	if _, err := kv.Put(ctx, "k.after", []byte("2")); err != nil {
		t.Fatalf("kv put after: %v", err)
	}
	eventually(t, "second batch handled", func() bool { return col.count() == 20 })
	eventually(t, "consumer settled after", func() bool { return settled(t, b, StreamConv, "df") })
	if n := streamMsgs(t, b, StreamConv); n != 20 {
		t.Errorf("stream holds %d messages, want 20 (resent ids stored once)", n)
	}
	for id, n := range col.ids() {
		if n != 1 {
			t.Errorf("%s handled %d times, want 1", id, n)
		}
	}
	// Other processes still reach the server where they did.
	if got := b.ClientURL(); got != url {
		t.Errorf("client url %s after the restart, was %s", got, url)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("connect over tcp after the restart: %v", err)
	}
	defer nc.Close()
	njs, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := njs.Publish(ctx, ConvSubject("acme"), []byte(`{"id":"tcp"}`), jetstream.WithMsgID(EventMsgID("acme", "tcp"))); err != nil {
		t.Fatalf("publish over tcp after the restart: %v", err)
	}
	eventually(t, "the tcp message handled", func() bool { return col.count() == 21 })
	// The watch's ordered consumer lived in memory: it is re-created once
	// two of its heartbeats (5 s apart) are missed.
	waitKey(t, seenKeys, "k.after")
	stopConsumer(t, c)
}

func waitKey(t *testing.T, keys <-chan string, want string) {
	t.Helper()
	deadline := time.After(3 * waitFor)
	for {
		select {
		case k := <-keys:
			if k == want {
				return
			}
		case <-deadline:
			t.Fatalf("kv watch never saw %s after the restart", want)
		}
	}
}

// TestRealDiskFullRecovers runs the embedded server on a small tmpfs,
// fills it, and checks publishes are refused naming the full disk, then
// accepted again once space returns, without a restart of the process and
// with every message delivered exactly once.
func TestRealDiskFullRecovers(t *testing.T) {
	dir := tmpfs.Mount(t, "16m")
	b := openTestBus(t, func(c *Config) {
		c.DataDir = dir
		c.MaxBytes = 2 << 20
		c.PublishTimeout = 500 * time.Millisecond
		c.DiskCheckInterval = 50 * time.Millisecond
	})
	// Publishes refused on the full disk wait for their timeout: no
	// deadline of the whole test on ctx.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	col := newCollector()
	c, err := b.Consume(ctx, fastConsumer("df"), func(_ context.Context, d *Delivery) error {
		col.add(d)
		return nil
	}, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	all := msgs("acme", 60, "e")
	for i := range all { // big enough that a full disk refuses each
		all[i].Data = append(all[i].Data, bytes.Repeat([]byte(" "), 16<<10)...)
	}
	for _, m := range all[:20] {
		if err := b.Publish(ctx, m); err != nil {
			t.Fatalf("publish before the disk filled: %v", err)
		}
	}
	filler := filepath.Join(dir, "filler")
	tmpfs.Fill(t, filler)

	var refused []Msg
	var lastErr error
	for _, m := range all[20:40] {
		if err := b.Publish(ctx, m); err != nil {
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("publish on a full disk: %v, want unavailable", err)
			}
			refused, lastErr = append(refused, m), err
		}
	}
	if len(refused) == 0 {
		t.Fatal("no publish refused on a full disk")
	}
	if !strings.Contains(lastErr.Error(), "disk full") {
		t.Errorf("refusal does not name the full disk: %v", lastErr)
	}
	if err := ready(b); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("ready on a full disk: %v", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	eventually(t, "ready again once space returned", func() bool { return ready(b) == nil })
	t.Logf("ready %s after space returned", time.Since(freed).Round(time.Millisecond))
	if n := b.DiskRecoveries(); n != 1 {
		t.Errorf("%d in-process restarts, want 1", n)
	}
	// Everything is resent (the refused ones and the rest); ids dedupe.
	if err := b.PublishBatch(ctx, all); err != nil {
		t.Fatalf("publish after space returned: %v", err)
	}
	eventually(t, "every message handled", func() bool { return col.count() >= len(all) })
	t.Logf("every message handled %s after space returned", time.Since(freed).Round(time.Millisecond))
	eventually(t, "consumer settled", func() bool { return settled(t, b, StreamConv, "df") })
	if n := streamMsgs(t, b, StreamConv); n != uint64(len(all)) {
		t.Errorf("stream holds %d messages, want %d", n, len(all))
	}
	ids := col.ids()
	for _, m := range all {
		if ids[m.ID] != 1 {
			t.Errorf("%s handled %d times, want 1", m.ID, ids[m.ID])
		}
	}
	t.Logf("%d of 20 refused on the full disk: %v", len(refused), lastErr)
	stopConsumer(t, c)
}

// ready asks b.Ready with a short deadline, as /readyz does.
func ready(b *Bus) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return b.Ready(ctx)
}

// readyWhenCounted is a slog handler that checks, at the moment the
// restart is logged (after it is counted), that readiness no longer says
// the store is being restarted.
type readyWhenCounted struct {
	slog.Handler
	b      *Bus
	failed atomic.Pointer[string]
	seen   atomic.Bool
}

func (h *readyWhenCounted) Enabled(context.Context, slog.Level) bool { return true }

func (h *readyWhenCounted) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "restarted after a full disk") {
		h.seen.Store(true)
		if h.b.DiskRecoveries() == 0 {
			msg := "logged before the restart was counted"
			h.failed.Store(&msg)
		} else if why := h.b.diskNotReady(); why != "" {
			h.failed.Store(&why)
		}
	}
	return h.Handler.Handle(ctx, r)
}

// TestRecoveryCountedOnlyWhenReady: a restart counted by DiskRecoveries is
// never seen while readiness still says the store is being restarted (the
// count used to be raised before the deferred reset of the flag, which
// failed the test above on a loaded machine).
func TestRecoveryCountedOnlyWhenReady(t *testing.T) {
	b := openTestBus(t, func(c *Config) {
		c.EmbeddedListen = "127.0.0.1:0"
		c.DiskCheckInterval = time.Hour // no restart but the one below
	})
	h := &readyWhenCounted{Handler: slog.DiscardHandler, b: b}
	b.log = slog.New(h)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := b.restartJetStream(ctx, 1<<30); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if !h.seen.Load() {
		t.Fatal("the restart was not logged")
	}
	if p := h.failed.Load(); p != nil {
		t.Fatalf("restart counted while not ready: %s", *p)
	}
	if err := ready(b); err != nil {
		t.Fatalf("not ready after the restart: %v", err)
	}
}
