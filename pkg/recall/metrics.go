package recall

import "github.com/prometheus/client_golang/prometheus"

// LLM steps, as metrics and Step.Trigger name them.
const (
	stepExpand = "expand"
	stepRerank = "rerank"
)

// Outcomes of an LLM step; every one but applied leaves the answer as it
// was before the step.
const (
	outcomeApplied     = "applied"
	outcomeNotBetter   = "not_better"  // automatic expansion found nothing more relevant
	outcomeFailed      = "failed"      // the LLM could not be reached or refused
	outcomeTimeout     = "timeout"     // the step's time ran out
	outcomeUnparseable = "unparseable" // the answer held nothing usable
	outcomeSearch      = "search_failed"
)

// metrics are the recaller's Prometheus series.
type metrics struct {
	steps *prometheus.CounterVec // step, outcome
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		steps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_recall_llm_steps_total",
			Help: "Recall LLM steps (expand, rerank) by outcome: applied, not_better, failed, timeout, unparseable, search_failed; all but applied answer with the results before the step."},
			[]string{"step", "outcome"}),
	}
	for _, s := range []string{stepExpand, stepRerank} {
		for _, o := range []string{outcomeApplied, outcomeFailed, outcomeTimeout, outcomeUnparseable} {
			m.steps.WithLabelValues(s, o)
		}
	}
	if reg != nil {
		reg.MustRegister(m.steps)
	}
	return m
}
