package auditlog

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metered is a Log that counts what is written and logs every failed
// write: an audit entry that could not be stored is never silent. It
// stamps entries without a time with its clock.
type Metered struct {
	Log
	log           *slog.Logger
	now           func() time.Time
	entries       *prometheus.CounterVec
	failed        prometheus.Counter
	failedEntries prometheus.Counter
}

// NewMetered wraps l; its metrics are registered with reg.
func NewMetered(l Log, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) *Metered {
	m := &Metered{
		Log: l,
		log: log,
		now: now,
		entries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recollect_audit_entries_total",
			Help: "Audit entries written, by phase, decider and whether the operation was applied.",
		}, []string{"phase", "decider", "applied"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recollect_audit_write_failures_total",
			Help: "Audit writes that failed (the caller got the error; see the log).",
		}),
		failedEntries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recollect_audit_entries_failed_total",
			Help: "Audit entries in writes that failed.",
		}),
	}
	reg.MustRegister(m.entries, m.failed, m.failedEntries)
	return m
}

// Write stamps, writes and counts the batch; a failure is logged with the
// tenant and epoch and returned.
func (m *Metered) Write(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	stamped, copied := entries, false
	for i := range stamped {
		if !stamped[i].Time.IsZero() {
			continue
		}
		if !copied { // the caller's slice stays as it was
			stamped, copied = slices.Clone(entries), true
		}
		stamped[i].Time = m.now().UTC()
	}
	if err := m.Log.Write(ctx, stamped); err != nil {
		m.failed.Inc()
		m.failedEntries.Add(float64(len(stamped)))
		m.log.ErrorContext(ctx, "audit write failed", "tenant", stamped[0].Tenant, "epoch", stamped[0].Epoch,
			"phase", stamped[0].Phase, "entries", len(stamped), "error", err)
		return err
	}
	for i := range stamped {
		e := &stamped[i]
		m.entries.WithLabelValues(e.Phase, e.Decider, strconv.FormatBool(e.Applied)).Inc()
	}
	return nil
}
