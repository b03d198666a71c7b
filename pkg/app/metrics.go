package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/bus"
)

// meteredBus is the bus as the modules see it: every consumer reports each
// settled delivery to Prometheus, and its backlog is reported at scrape time.
type meteredBus struct {
	*bus.Bus
	handled     *prometheus.HistogramVec
	deadLetters *prometheus.CounterVec
	lag         *busLag
}

func newMeteredBus(b *bus.Bus, reg prometheus.Registerer) *meteredBus {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "recollect_bus_handle_duration_seconds",
		Help:    "Time to handle and settle one delivery, by consumer and outcome (ack, nak, dead_letter).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"consumer", "outcome"})
	dl := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "recollect_bus_dead_letters_total",
		Help: "Messages this process copied to the dead-letter stream, by consumer and reason (permanent: the handler refused it; panic; max_deliver: it failed on every allowed delivery; no_outcome: it came back past max deliver unsettled, e.g. its handler crashed the process). The free-text reason is in each dead letter's Recollect-Dlq-Reason header.",
	}, []string{"consumer", "reason"})
	lag := newBusLag(b, time.Now)
	restarts := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "recollect_bus_disk_restarts_total",
		Help: "In-process restarts of the embedded JetStream after a full disk, once space returned (its store keeps a write error until then).",
	}, func() float64 { return float64(b.DiskRecoveries()) })
	reg.MustRegister(h, dl, lag, restarts)
	return &meteredBus{Bus: b, handled: h, deadLetters: dl, lag: lag}
}

// Consume attaches the metrics hook, keeping any the module set.
func (m *meteredBus) Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error) {
	prev := cc.OnOutcome
	name := cc.Durable
	m.lag.track(cc.Stream, cc.Durable, cc.FilterSubjects)
	cc.OnOutcome = func(o bus.Outcome, took time.Duration) {
		m.handled.WithLabelValues(name, string(o)).Observe(took.Seconds())
		if prev != nil {
			prev(o, took)
		}
	}
	// Every reason starts at 0 so that increase() sees the first one.
	for _, r := range []bus.DeadLetterReason{bus.ReasonPermanent, bus.ReasonPanic, bus.ReasonMaxDeliver, bus.ReasonNoOutcome} {
		m.deadLetters.WithLabelValues(name, string(r))
	}
	prevDL := cc.OnDeadLetter
	cc.OnDeadLetter = func(r bus.DeadLetterReason) {
		m.deadLetters.WithLabelValues(name, string(r)).Inc()
		if prevDL != nil {
			prevDL(r)
		}
	}
	return m.Bus.Consume(ctx, cc, h, log)
}
