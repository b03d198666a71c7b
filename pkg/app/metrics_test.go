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
	if n, err := gauge("recollect_bus_stream_messages", bus.StreamDLQ); err != nil || n != 0 {
		t.Fatalf("dead letters = %v (%v), want 0", n, err)
	}
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
