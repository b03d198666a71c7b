package app

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// readiness records each /readyz answer: whether the process is ready now
// and how often that changed, so that a flapping readiness shows in
// Prometheus (the gauge moves only when something asks /readyz, e.g. the
// kubelet's readiness probe).
type readiness struct {
	mu          sync.Mutex
	known, last bool
	ready       prometheus.Gauge
	transitions prometheus.Counter
}

func newReadiness(reg prometheus.Registerer) *readiness {
	r := &readiness{
		ready: prometheus.NewGauge(prometheus.GaugeOpts{Name: "recollect_ready",
			Help: "1 when the last /readyz answer was ready, 0 when it was not."}),
		transitions: prometheus.NewCounter(prometheus.CounterOpts{Name: "recollect_ready_transitions_total",
			Help: "Changes of the /readyz answer between ready and not ready."}),
	}
	reg.MustRegister(r.ready, r.transitions)
	return r
}

// observe records one answer and passes err through.
func (r *readiness) observe(err error) error {
	ok := err == nil
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known && r.last != ok {
		r.transitions.Inc()
	}
	r.known, r.last = true, ok
	if ok {
		r.ready.Set(1)
	} else {
		r.ready.Set(0)
	}
	return err
}
