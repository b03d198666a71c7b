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
	handled *prometheus.HistogramVec
	lag     *busLag
}

func newMeteredBus(b *bus.Bus, reg prometheus.Registerer) *meteredBus {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "recollect_bus_handle_duration_seconds",
		Help:    "Time to handle and settle one delivery, by consumer and outcome (ack, nak, dead_letter).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"consumer", "outcome"})
	lag := newBusLag(b)
	reg.MustRegister(h, lag)
	return &meteredBus{Bus: b, handled: h, lag: lag}
}

// Consume attaches the metrics hook, keeping any the module set.
func (m *meteredBus) Consume(ctx context.Context, cc bus.ConsumerConfig, h bus.Handler, log *slog.Logger) (*bus.Consumer, error) {
	prev := cc.OnOutcome
	name := cc.Durable
	m.lag.track(cc.Stream, cc.Durable)
	cc.OnOutcome = func(o bus.Outcome, took time.Duration) {
		m.handled.WithLabelValues(name, string(o)).Observe(took.Seconds())
		if prev != nil {
			prev(o, took)
		}
	}
	return m.Bus.Consume(ctx, cc, h, log)
}
