package usage_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/recollect-dev/recollect/pkg/usage"
	"github.com/recollect-dev/recollect/pkg/usage/usagetest"
)

// eventually bounds polls for something the buffer does on its own.
const eventually = 10 * time.Second

var errDown = errors.New("backend down")

// fast makes the loop and its retries quick so tests need not wait.
func fast(opts ...usage.Option) []usage.Option {
	return append([]usage.Option{
		usage.WithFlushInterval(5 * time.Millisecond),
		usage.WithRetryBackoff(time.Millisecond, 10*time.Millisecond),
	}, opts...)
}

func newBuffered(t *testing.T, w usage.Writer, opts ...usage.Option) *usage.Buffered {
	t.Helper()
	b := usage.NewBuffered(w, opts...)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func record(i int) usage.Record {
	return usage.Record{
		Time:        time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		Tenant:      "acme",
		Component:   "extractor",
		Model:       "m",
		InputTokens: int64(i),
		Outcome:     usage.OutcomeOK,
	}
}

func recordN(b *usage.Buffered, from, n int) {
	for i := from; i < from+n; i++ {
		b.Record(context.Background(), record(i))
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, eventually)
		}
		time.Sleep(time.Millisecond)
	}
}

// wantStored checks the backend holds records from..from+n-1, in order.
func wantStored(t *testing.T, m *usagetest.Memory, n int) {
	t.Helper()
	got := m.Records()
	if len(got) != n {
		t.Fatalf("backend holds %d records, want %d", len(got), n)
	}
	for i, r := range got {
		if r.InputTokens != int64(i) {
			t.Fatalf("record %d is #%d: lost, duplicated or reordered", i, r.InputTokens)
		}
	}
}

func TestBufferedWritesInBackground(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []usage.Option
		n    int // per round; two rounds
	}{
		// The interval is the only trigger: the batch never fills.
		{"on interval", []usage.Option{usage.WithFlushInterval(5 * time.Millisecond)}, 3},
		// The interval never comes: a full batch must go on its own.
		{"on full batch", []usage.Option{usage.WithFlushInterval(time.Hour), usage.WithBatchSize(10)}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := usagetest.NewMemory()
			b := newBuffered(t, m, tc.opts...)
			for round := 1; round <= 2; round++ {
				recordN(b, (round-1)*tc.n, tc.n)
				waitFor(t, "records written", func() bool { return b.Written() == int64(round*tc.n) })
			}
			wantStored(t, m, 2*tc.n)
			if b.Pending() != 0 || b.Dropped() != 0 || b.FailedWrites() != 0 {
				t.Fatalf("pending %d dropped %d failed %d, want 0 0 0", b.Pending(), b.Dropped(), b.FailedWrites())
			}
		})
	}
}

func TestBufferedBackendDownKeepsRecords(t *testing.T) {
	m := usagetest.NewMemory()
	m.Fail(errDown)
	b := newBuffered(t, m, fast(usage.WithBatchSize(10))...)
	recordN(b, 0, 100)
	waitFor(t, "retries", func() bool { return b.FailedWrites() >= 3 })
	if err := b.Flush(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("flush while down = %v, want %v", err, errDown)
	}
	recordN(b, 100, 50) // still accepted while down
	if b.Pending() != 150 || b.Written() != 0 || b.Dropped() != 0 {
		t.Fatalf("while down: pending %d written %d dropped %d, want 150 0 0", b.Pending(), b.Written(), b.Dropped())
	}
	m.Fail(nil)
	waitFor(t, "written after recovery", func() bool { return b.Written() == 150 })
	wantStored(t, m, 150)
	if b.Dropped() != 0 {
		t.Fatalf("dropped %d, want 0", b.Dropped())
	}
}

// TestBufferedBoundedWhileHung: a backend that hangs must not block Record;
// past the capacity records are dropped and counted, the rest delivered.
func TestBufferedBoundedWhileHung(t *testing.T) {
	m := usagetest.NewMemory()
	release := m.Hold()
	defer release()
	b := newBuffered(t, m, fast(usage.WithCapacity(100), usage.WithBatchSize(10))...)
	recordN(b, 0, 10)
	waitFor(t, "a write in flight", func() bool { return m.InFlight() == 1 })
	recordN(b, 10, 240)
	if b.Dropped() != 150 || b.Pending() != 100 {
		t.Fatalf("dropped %d pending %d, want 150 100", b.Dropped(), b.Pending())
	}
	release()
	waitFor(t, "kept records written", func() bool { return b.Written() == 100 })
	wantStored(t, m, 100)
	if b.Dropped() != 150 {
		t.Fatalf("dropped %d after recovery, want 150", b.Dropped())
	}
}

func TestBufferedClose(t *testing.T) {
	t.Run("flushes", func(t *testing.T) {
		m := usagetest.NewMemory()
		b := usage.NewBuffered(m, usage.WithFlushInterval(time.Hour))
		recordN(b, 0, 7)
		if err := b.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		wantStored(t, m, 7)
		b.Record(context.Background(), record(7))
		if err := b.Close(); err != nil {
			t.Fatalf("second close: %v", err)
		}
		if b.Dropped() != 1 || b.Written() != 7 {
			t.Fatalf("after close: dropped %d written %d, want 1 7", b.Dropped(), b.Written())
		}
		wantStored(t, m, 7)
	})
	t.Run("backend down", func(t *testing.T) {
		m := usagetest.NewMemory()
		m.Fail(errDown)
		b := usage.NewBuffered(m, usage.WithFlushInterval(time.Hour))
		recordN(b, 0, 5)
		if err := b.Close(); !errors.Is(err, errDown) {
			t.Fatalf("close while down = %v, want %v", err, errDown)
		}
		if b.Dropped() != 5 || b.Pending() != 0 {
			t.Fatalf("dropped %d pending %d, want 5 0", b.Dropped(), b.Pending())
		}
	})
	t.Run("backend hung", func(t *testing.T) {
		m := usagetest.NewMemory()
		release := m.Hold()
		defer release()
		b := usage.NewBuffered(m, fast(usage.WithCloseTimeout(20*time.Millisecond))...)
		recordN(b, 0, 5)
		waitFor(t, "a write in flight", func() bool { return m.InFlight() == 1 })
		if err := b.Close(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("close while hung = %v, want deadline exceeded", err)
		}
		if b.Dropped() != 5 {
			t.Fatalf("dropped %d, want 5", b.Dropped())
		}
	})
}

// flaky fails every other write.
type flaky struct {
	mu    sync.Mutex
	calls int
	m     *usagetest.Memory
}

func (f *flaky) Write(ctx context.Context, recs []usage.Record) error {
	f.mu.Lock()
	f.calls++
	fail := f.calls%2 == 0
	f.mu.Unlock()
	if fail {
		return errDown
	}
	return f.m.Write(ctx, recs)
}

// TestBufferedCloseDuringFlush: when Close gives up on what is left, it
// must not pull records from under a Flush that is mid-batch; every record
// ends up either written once or counted as dropped.
func TestBufferedCloseDuringFlush(t *testing.T) {
	for range 20 {
		f := &flaky{m: usagetest.NewMemory()}
		b := usage.NewBuffered(f, usage.WithFlushInterval(time.Hour), usage.WithBatchSize(3))
		recordN(b, 0, 300)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 50 {
					_ = b.Flush(context.Background())
				}
			})
		}
		_ = b.Close()
		wg.Wait()
		stored := len(f.m.Records())
		if b.Pending() != 0 || b.Written() != int64(stored) || b.Written()+b.Dropped() != 300 {
			t.Fatalf("pending %d, written %d, stored %d, dropped %d; want 0, stored, stored, 300-stored",
				b.Pending(), b.Written(), stored, b.Dropped())
		}
	}
}

func TestBufferedFlush(t *testing.T) {
	m := usagetest.NewMemory()
	b := newBuffered(t, m, usage.WithFlushInterval(time.Hour), usage.WithBatchSize(4))
	recordN(b, 0, 3)
	if err := b.Flush(context.Background()); err != nil {
		t.Fatalf("flush: %v", err)
	}
	wantStored(t, m, 3)
	if err := b.Flush(context.Background()); err != nil {
		t.Fatalf("flush of nothing: %v", err)
	}
	if m.Writes() != 1 {
		t.Fatalf("%d writes, want 1: an empty flush must not write", m.Writes())
	}

	release := m.Hold()
	recordN(b, 3, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("flush to a hung backend = %v, want deadline exceeded", err)
	}
	release()
	if err := b.Flush(context.Background()); err != nil {
		t.Fatalf("flush after release: %v", err)
	}
	wantStored(t, m, 4)
}

// TestBufferedConcurrent races Record, Flush and the loop: every record
// must reach the backend exactly once.
func TestBufferedConcurrent(t *testing.T) {
	const writers, each = 4, 500
	m := usagetest.NewMemory()
	b := newBuffered(t, m, fast(usage.WithBatchSize(16))...)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { recordN(b, w*each, each) })
	}
	for range 2 {
		wg.Go(func() {
			for range 20 {
				if err := b.Flush(context.Background()); err != nil {
					t.Errorf("flush: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	seen := make(map[int64]int)
	for _, r := range m.Records() {
		seen[r.InputTokens]++
	}
	for i := range int64(writers * each) {
		if seen[i] != 1 {
			t.Fatalf("record %d stored %d times, want once", i, seen[i])
		}
	}
	if len(seen) != writers*each || b.Written() != writers*each {
		t.Fatalf("stored %d distinct, written %d; want %d", len(seen), b.Written(), writers*each)
	}
}

func TestBufferedStampsRecords(t *testing.T) {
	now := time.Date(2025, 7, 1, 9, 30, 0, 0, time.UTC)
	m := usagetest.NewMemory()
	b := usage.NewBuffered(m, usage.WithClock(func() time.Time { return now }))
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	})
	traced := trace.ContextWithSpanContext(context.Background(), sc)
	given := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

	b.Record(traced, usage.Record{Component: "a"})
	b.Record(traced, usage.Record{Component: "b", Time: given, Outcome: usage.OutcomeError, TraceID: "mine"})
	b.Record(context.Background(), usage.Record{Component: "c"})
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	got := m.Records()
	want := []struct {
		time             time.Time
		outcome, traceID string
	}{
		{now, usage.OutcomeOK, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{given, usage.OutcomeError, "mine"},
		{now, usage.OutcomeOK, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i, w := range want {
		if !got[i].Time.Equal(w.time) || got[i].Outcome != w.outcome || got[i].TraceID != w.traceID {
			t.Errorf("record %s: time %s outcome %q trace %q; want %s %q %q",
				got[i].Component, got[i].Time, got[i].Outcome, got[i].TraceID, w.time, w.outcome, w.traceID)
		}
	}
}

// discard is a backend that keeps nothing, so the benchmark measures the
// buffer alone.
type discard struct{}

func (discard) Write(context.Context, []usage.Record) error { return nil }

// BenchmarkBufferedRecord is the cost a model call pays to record usage.
func BenchmarkBufferedRecord(b *testing.B) {
	buf := usage.NewBuffered(discard{})
	defer buf.Close()
	r := record(1)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			buf.Record(ctx, r)
		}
	})
	b.StopTimer()
	// Far above any real rate of model calls, so the buffer may fill: the
	// share dropped shows how much of the time measured the drop path.
	b.ReportMetric(float64(buf.Dropped())/float64(b.N), "dropped/op")
}
