package app

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// busLagTimeout bounds the JetStream calls of one scrape.
const busLagTimeout = 2 * time.Second

// busLag reports, at scrape time, the backlog of every durable consumer this
// process runs and the size of every stream: what a stuck consumer or a
// growing dead-letter stream looks like from Prometheus. Replicas of a
// worker report the same consumer; take max by (consumer).
type busLag struct {
	b *bus.Bus

	mu        sync.Mutex
	consumers map[[2]string]bool // {stream, durable}

	pending, ackPending, streamMsgs *prometheus.Desc
}

func newBusLag(b *bus.Bus) *busLag {
	return &busLag{
		b:         b,
		consumers: map[[2]string]bool{},
		pending: prometheus.NewDesc("recollect_bus_consumer_pending_messages",
			"Messages of the stream not yet delivered to the durable consumer (its lag), by stream and consumer.", []string{"stream", "consumer"}, nil),
		ackPending: prometheus.NewDesc("recollect_bus_consumer_ack_pending_messages",
			"Messages delivered to the durable consumer and not yet acknowledged, by stream and consumer.", []string{"stream", "consumer"}, nil),
		streamMsgs: prometheus.NewDesc("recollect_bus_stream_messages",
			"Messages stored in the JetStream stream (RECOLLECT_DLQ holds the dead letters), by stream.", []string{"stream"}, nil),
	}
}

func (l *busLag) track(stream, durable string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.consumers[[2]string{stream, durable}] = true
}

// Describe implements prometheus.Collector.
func (l *busLag) Describe(ch chan<- *prometheus.Desc) {
	ch <- l.pending
	ch <- l.ackPending
	ch <- l.streamMsgs
}

// Collect implements prometheus.Collector; a stream or consumer JetStream
// cannot describe within the timeout is left out of this scrape.
func (l *busLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), busLagTimeout)
	defer cancel()
	js := l.b.JetStream()
	for _, name := range []string{bus.StreamConv, bus.StreamFact, bus.StreamEvent, bus.StreamDLQ} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			continue
		}
		info, err := s.Info(ctx)
		if err != nil {
			continue
		}
		ch <- prometheus.MustNewConstMetric(l.streamMsgs, prometheus.GaugeValue, float64(info.State.Msgs), name)
	}
	l.mu.Lock()
	keys := make([][2]string, 0, len(l.consumers))
	for k := range l.consumers {
		keys = append(keys, k)
	}
	l.mu.Unlock()
	for _, k := range keys {
		c, err := js.Consumer(ctx, k[0], k[1])
		if err != nil {
			continue
		}
		info, err := c.Info(ctx)
		if err != nil {
			continue
		}
		ch <- prometheus.MustNewConstMetric(l.pending, prometheus.GaugeValue, float64(info.NumPending), k[0], k[1])
		ch <- prometheus.MustNewConstMetric(l.ackPending, prometheus.GaugeValue, float64(info.NumAckPending), k[0], k[1])
	}
}
