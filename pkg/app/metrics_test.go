package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/recollect-dev/recollect/pkg/bus"
)

func TestBusLagReportsBacklogAndStreamSize(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bus.Open(ctx, bus.Config{DataDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	for i := range 3 {
		if err := b.Publish(ctx, bus.Msg{Subject: bus.ConvSubject("acme"), ID: fmt.Sprint("e", i), Data: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	m := newMeteredBus(b, reg)
	first, err := b.JetStream().Stream(ctx, bus.StreamConv)
	if err != nil {
		t.Fatal(err)
	}
	firstMsg, err := first.GetMsg(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.lag.now = func() time.Time { return firstMsg.Time.Add(42 * time.Second) }
	release := make(chan struct{})
	c, err := m.Consume(ctx, bus.ConsumerConfig{Durable: "lagtest", Stream: bus.StreamConv}, func(ctx context.Context, _ *bus.Delivery) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })

	gauge := func(name string, labels ...string) (float64, error) {
		mfs, err := reg.Gather()
		if err != nil {
			return 0, err
		}
		for _, mf := range mfs {
			if mf.GetName() != name {
				continue
			}
		metrics:
			for _, mm := range mf.GetMetric() {
				for i, lp := range mm.GetLabel() {
					if i >= len(labels) || lp.GetValue() != labels[i] {
						continue metrics
					}
				}
				return mm.GetGauge().GetValue(), nil
			}
		}
		return 0, fmt.Errorf("%s%v not reported", name, labels)
	}
	want := func(what string, cond func() error) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		var err error
		for time.Now().Before(deadline) {
			if err = cond(); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: %v", what, err)
	}
	want("three stored, one in flight, two waiting", func() error {
		stored, err1 := gauge("recollect_bus_stream_messages", bus.StreamConv)
		// Labels sort by name: consumer, stream.
		pending, err2 := gauge("recollect_bus_consumer_pending_messages", "lagtest", bus.StreamConv)
		inFlight, err3 := gauge("recollect_bus_consumer_ack_pending_messages", "lagtest", bus.StreamConv)
		if err := errors.Join(err1, err2, err3); err != nil {
			return err
		}
		if stored != 3 || pending != 2 || inFlight != 1 {
			return fmt.Errorf("stored %v, pending %v, ack pending %v", stored, pending, inFlight)
		}
		return nil
	})
	if age, err := gauge("recollect_bus_consumer_oldest_unacked_age_seconds", "lagtest", bus.StreamConv); err != nil || age != 42 {
		t.Fatalf("oldest unacked age = %v (%v), want 42 s (the first message, by the injected clock)", age, err)
	}
	if n, err := gauge("recollect_bus_stream_bytes", bus.StreamConv); err != nil || n <= 0 {
		t.Fatalf("stream bytes = %v (%v), want > 0", n, err)
	}
	close(release)
	want("backlog drained", func() error {
		pending, err1 := gauge("recollect_bus_consumer_pending_messages", "lagtest", bus.StreamConv)
		inFlight, err2 := gauge("recollect_bus_consumer_ack_pending_messages", "lagtest", bus.StreamConv)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		if pending != 0 || inFlight != 0 {
			return fmt.Errorf("pending %v, ack pending %v", pending, inFlight)
		}
		return nil
	})
	if age, err := gauge("recollect_bus_consumer_oldest_unacked_age_seconds", "lagtest", bus.StreamConv); err != nil || age != 0 {
		t.Fatalf("oldest unacked age after draining = %v (%v), want 0", age, err)
	}
	if n, err := gauge("recollect_bus_stream_messages", bus.StreamDLQ); err != nil || n != 0 {
		t.Fatalf("dead letters = %v (%v), want 0", n, err)
	}
}

// A redelivered message shows in the redelivered gauge while it is held; a
// refused one in the dead-letter counter under its reason class.
func TestBusMetricsCountRedeliveriesAndDeadLetters(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := bus.Open(ctx, bus.Config{DataDir: t.TempDir()}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	for _, id := range []string{"refused", "retried"} {
		if err := b.Publish(ctx, bus.Msg{Subject: bus.ConvSubject("acme"), ID: id, Data: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	m := newMeteredBus(b, reg)
	release := make(chan struct{})
	c, err := m.Consume(ctx, bus.ConsumerConfig{Durable: "redl", Stream: bus.StreamConv, Backoff: func(uint64) time.Duration { return 0 }},
		func(ctx context.Context, d *bus.Delivery) error {
			if string(d.Data) == "refused" {
				return bus.Permanent(errors.New("no"))
			}
			if d.NumDelivered == 1 {
				return errors.New("try again")
			}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	metric := func(name string, labels map[string]string) (*dto.Metric, error) {
		mfs, err := reg.Gather()
		if err != nil {
			return nil, err
		}
		for _, mf := range mfs {
			if mf.GetName() != name {
				continue
			}
		metrics:
			for _, mm := range mf.GetMetric() {
				for _, lp := range mm.GetLabel() {
					if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
						continue metrics
					}
				}
				return mm, nil
			}
		}
		return nil, fmt.Errorf("%s%v not reported", name, labels)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		red, err1 := metric("recollect_bus_consumer_redelivered_messages", map[string]string{"consumer": "redl"})
		dl, err2 := metric("recollect_bus_dead_letters_total", map[string]string{"consumer": "redl", "reason": "permanent"})
		err := errors.Join(err1, err2)
		if err == nil && red.GetGauge().GetValue() == 1 && dl.GetCounter().GetValue() == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redelivered %v, dead letters %v (%v); want 1 and 1", red, dl, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range []string{"panic", "max_deliver", "no_outcome"} {
		dl, err := metric("recollect_bus_dead_letters_total", map[string]string{"consumer": "redl", "reason": r})
		if err != nil || dl.GetCounter().GetValue() != 0 {
			t.Errorf("dead letters %s = %v (%v), want a reported 0", r, dl, err)
		}
	}
	close(release)
}

func TestReadinessCountsTransitions(t *testing.T) {
	reg := prometheus.NewRegistry()
	r := newReadiness(reg)
	down := errors.New("starting")
	for _, err := range []error{down, down, nil, nil, down, nil} {
		if got := r.observe(err); !errors.Is(got, err) && got != err {
			t.Fatalf("observe changed the answer: %v", got)
		}
	}
	if got := value(t, r.transitions); got != 3 {
		t.Fatalf("transitions = %v, want 3 (down→up, up→down, down→up)", got)
	}
	if got := value(t, r.ready); got != 1 {
		t.Fatalf("ready = %v, want 1", got)
	}
	r.observe(down)
	if got := value(t, r.ready); got != 0 {
		t.Fatalf("ready after a failed answer = %v, want 0", got)
	}
}

// value reads a gauge or counter.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Counter != nil {
		return out.Counter.GetValue()
	}
	return out.Gauge.GetValue()
}
