package extract

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recollect-dev/recollect/pkg/extract/filter"
)

// Producers of facts, as metrics label them.
const (
	producerRule       = "rule"
	producerLLM        = "llm"
	producerTranscript = "transcript"
	producerDirective  = "personality"
	producerAPI        = "api"
)

// Outcomes of one model call for one domain.
const (
	callOK          = "ok"          // read at once
	callEmpty       = "empty"       // read, nothing to extract
	callTidied      = "tidied"      // read after fixing JSON slips
	callSalvaged    = "salvaged"    // the whole facts of a cut-off or broken answer
	callRepaired    = "repaired"    // read after the repair request
	callUnparseable = "unparseable" // unreadable after the repair request: counted and logged
	callFailed      = "failed"      // the model could not be reached or refused
)

// Triggers of an extraction.
const (
	triggerTurn       = "turn"
	triggerCompaction = "compaction"
	triggerSessionEnd = "session_end"
	triggerMemory     = "memory"
)

// metrics are the extractor's Prometheus series.
type metrics struct {
	facts       *prometheus.CounterVec // domain, rule
	rejected    *prometheus.CounterVec // reason, producer
	calls       *prometheus.CounterVec // domain, outcome
	extractions *prometheus.CounterVec // trigger, outcome
	seconds     *prometheus.HistogramVec
	dropped     *prometheus.CounterVec // what: messages (beyond the windows), turns (session buffer full), windows (gave up)
	pending     prometheus.Gauge
	transcripts prometheus.Counter
	directives  *prometheus.CounterVec // outcome
	quarantined *prometheus.CounterVec // reason
	redacted    *prometheus.CounterVec // kind
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		facts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_facts_total",
			Help: "Facts published, by domain and rule (rule capture's rule name, llm, transcript, personality, api)."}, []string{"domain", "rule"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_rejected_total",
			Help: "Facts the filters refused, by reason and by what produced them."}, []string{"reason", "producer"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_llm_calls_total",
			Help: "Per-domain LLM extraction calls by outcome: ok, empty, tidied, salvaged, repaired, unparseable (reported, facts lost), failed."}, []string{"domain", "outcome"}),
		extractions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_extractions_total",
			Help: "LLM extractions by trigger (turn, compaction, session_end) and outcome (ok, partial, failed, retry, skipped)."}, []string{"trigger", "outcome"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recollect_extractor_extraction_seconds",
			Help:    "Time of one LLM extraction (all domains), by trigger.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 20, 40, 90}}, []string{"trigger"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_dropped_total",
			Help: "Input left out of LLM extraction: messages beyond the windows of a long conversation, turns of an overfull session buffer, windows given up after the LLM stayed unavailable."}, []string{"what"}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "recollect_extractor_sessions_pending",
			Help: "Sessions with turns waiting for LLM extraction, as this process sees them."}),
		transcripts: prometheus.NewCounter(prometheus.CounterOpts{Name: "recollect_extractor_transcript_chunks_total",
			Help: "Session-transcript chunks published from compacted messages."}),
		directives: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_directives_total",
			Help: "Personality directive syntheses by outcome (ok, rejected, failed)."}, []string{"outcome"}),
		quarantined: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_quarantined_total",
			Help: "Explicit memories stored quarantined (kept out of prompts) because they looked like prompt injection, by the detector that fired."}, []string{"reason"}),
		redacted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_extractor_redacted_total",
			Help: "Secrets redacted from explicit memories before they were stored, by kind."}, []string{"kind"}),
	}
	for _, r := range filter.Reasons() {
		for _, p := range []string{producerRule, producerLLM, producerTranscript, producerDirective, producerAPI} {
			m.rejected.WithLabelValues(string(r), p)
		}
	}
	if reg != nil {
		reg.MustRegister(m.facts, m.rejected, m.calls, m.extractions, m.seconds, m.dropped, m.pending, m.transcripts, m.directives, m.quarantined, m.redacted)
	}
	return m
}
