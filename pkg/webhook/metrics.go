package webhook

import "github.com/prometheus/client_golang/prometheus"

// metrics are per endpoint: the label is the endpoint id (never its URL,
// which may carry a token in its path).
type metrics struct {
	delivered *prometheus.CounterVec
	failed    *prometheus.CounterVec
	dead      *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	backlog   *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_webhook_delivered_total",
			Help: "Webhook events an endpoint acknowledged with a 2xx, by endpoint."}, []string{"endpoint"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_webhook_failed_total",
			Help: "Webhook delivery attempts that failed (error, timeout, non-2xx), by endpoint and class."}, []string{"endpoint", "class"}),
		dead: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_webhook_dead_lettered_total",
			Help: "Webhook events dead-lettered after their last attempt, by endpoint."}, []string{"endpoint"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recollect_webhook_delivery_seconds",
			Help:    "Webhook delivery attempt latency, by endpoint.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"endpoint"}),
		backlog: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "recollect_webhook_backlog",
			Help: "Events of its tenant not yet delivered to an endpoint (its consumer's pending and unacknowledged messages)."}, []string{"endpoint"}),
	}
	if reg != nil {
		reg.MustRegister(m.delivered, m.failed, m.dead, m.latency, m.backlog)
	}
	return m
}

// forget drops a removed endpoint's series.
func (m *metrics) forget(id string) {
	m.delivered.DeleteLabelValues(id)
	m.failed.DeletePartialMatch(prometheus.Labels{"endpoint": id})
	m.dead.DeleteLabelValues(id)
	m.latency.DeleteLabelValues(id)
	m.backlog.DeleteLabelValues(id)
}
