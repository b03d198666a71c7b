package app

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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
	b   *bus.Bus
	now func() time.Time

	mu        sync.Mutex
	consumers map[[2]string]string // {stream, durable} → the subject its oldest message is looked up by

	pending, ackPending, redelivered, oldestAge, streamMsgs, streamBytes *prometheus.Desc
}

func newBusLag(b *bus.Bus, now func() time.Time) *busLag {
	sc := []string{"stream", "consumer"}
	return &busLag{
		b:         b,
		now:       now,
		consumers: map[[2]string]string{},
		pending: prometheus.NewDesc("recollect_bus_consumer_pending_messages",
			"Messages of the stream not yet delivered to the durable consumer (its lag), by stream and consumer.", sc, nil),
		ackPending: prometheus.NewDesc("recollect_bus_consumer_ack_pending_messages",
			"Messages delivered to the durable consumer and not yet acknowledged, by stream and consumer.", sc, nil),
		redelivered: prometheus.NewDesc("recollect_bus_consumer_redelivered_messages",
			"Messages delivered to the durable consumer more than once and not yet acknowledged (JetStream's num_redelivered), by stream and consumer.", sc, nil),
		oldestAge: prometheus.NewDesc("recollect_bus_consumer_oldest_unacked_age_seconds",
			"Age, by its stream timestamp, of the first message after the consumer's ack floor: the oldest message the consumer has not acknowledged, delivered or not "+
				"(with several filter subjects, the first stream message after the floor, which may be older). 0 when nothing is pending or ack-pending. By stream and consumer.", sc, nil),
		streamMsgs: prometheus.NewDesc("recollect_bus_stream_messages",
			"Messages stored in the JetStream stream (RECOLLECT_DLQ holds the dead letters), by stream.", []string{"stream"}, nil),
		streamBytes: prometheus.NewDesc("recollect_bus_stream_bytes",
			"Bytes stored in the JetStream stream, by stream; compare with --nats-max-bytes.", []string{"stream"}, nil),
	}
}

// track adds a consumer to the scrape; filters are its filter subjects.
func (l *busLag) track(stream, durable string, filters []string) {
	subject := ">"
	if len(filters) == 1 {
		subject = filters[0]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.consumers[[2]string{stream, durable}] = subject
}

// Describe implements prometheus.Collector.
func (l *busLag) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{l.pending, l.ackPending, l.redelivered, l.oldestAge, l.streamMsgs, l.streamBytes} {
		ch <- d
	}
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
		ch <- prometheus.MustNewConstMetric(l.streamBytes, prometheus.GaugeValue, float64(info.State.Bytes), name)
	}
	l.mu.Lock()
	keys := make(map[[2]string]string, len(l.consumers))
	for k, v := range l.consumers {
		keys[k] = v
	}
	l.mu.Unlock()
	for k, subject := range keys {
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
		ch <- prometheus.MustNewConstMetric(l.redelivered, prometheus.GaugeValue, float64(info.NumRedelivered), k[0], k[1])
		if age, ok := l.oldestUnacked(ctx, js, k[0], subject, info); ok {
			ch <- prometheus.MustNewConstMetric(l.oldestAge, prometheus.GaugeValue, age.Seconds(), k[0], k[1])
		}
	}
}

// oldestUnacked is the age of the first message after the consumer's ack
// floor matching subject; false when it cannot be read in this scrape.
func (l *busLag) oldestUnacked(ctx context.Context, js jetstream.JetStream, stream, subject string, info *jetstream.ConsumerInfo) (time.Duration, bool) {
	if info.NumPending == 0 && info.NumAckPending == 0 {
		return 0, true
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return 0, false
	}
	m, err := s.GetMsg(ctx, info.AckFloor.Stream+1, jetstream.WithGetMsgSubject(subject))
	if err != nil {
		return 0, false
	}
	return max(l.now().Sub(m.Time), 0), true
}
