package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// conversation is one sample stored in its own tenant.
type conversation struct {
	sample  *Sample
	tenant  string
	turns   map[string]bool   // dia ids of the sample's turns
	sources map[string]string // source message id of a turn's event → dia id
	// asOf is the time of the conversation's last turn: questions are asked
	// then (zero when no session date parses).
	asOf time.Time
	// Filled by waiting: dia ids seen in a memory's tags or sources.
	covered  map[string]bool
	tagged   map[string]bool
	memories int
}

// runner holds one evaluation run.
type runner struct {
	cfg    Config
	set    string // names event ids; "" is LoCoMo
	client *client
	log    *slog.Logger
	convs  []*conversation
	audit  map[QAKey]AuditEntry
	report *Report
}

// LoCoMo ingests every conversation of cfg.Data into the Recollect at
// baseURL (one tenant per conversation, one memory per turn), waits until
// every turn is stored, asks every non-adversarial question through recall
// and scores the recalled turns against the evidence.
func LoCoMo(ctx context.Context, cfg Config, baseURL string, log *slog.Logger) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	samples, err := LoadLoCoMo(cfg.Data)
	if err != nil {
		return nil, err
	}
	if samples, err = selectSamples(samples, cfg.Samples); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, client: newClient(baseURL), log: log,
		report: &Report{Data: filepath.Base(cfg.Data), K: cfg.K, Conversations: len(samples)}}
	if err := r.loadAudit(samples); err != nil {
		return nil, err
	}
	for i := range samples {
		r.convs = append(r.convs, newConversation(&samples[i], cfg.TenantPrefix))
	}
	begin := time.Now()
	if err := r.ingest(ctx); err != nil {
		return nil, err
	}
	if err := r.waitStored(ctx); err != nil {
		return nil, err
	}
	r.report.IngestSeconds = round4(time.Since(begin).Seconds())
	begin = time.Now()
	if err := r.ask(ctx); err != nil {
		return nil, err
	}
	r.report.RecallSeconds = round4(time.Since(begin).Seconds())
	if r.report.RecallSeconds > 0 {
		r.report.QPS = round4(float64(r.report.Questions) / r.report.RecallSeconds)
	}
	r.addNotes()
	return r.report, nil
}

func selectSamples(samples []Sample, ids []string) ([]Sample, error) {
	if len(ids) == 0 {
		return samples, nil
	}
	var out []Sample
	for _, id := range ids {
		i := slices.IndexFunc(samples, func(s Sample) bool { return s.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("samples: %s is not in the data", id)
		}
		out = append(out, samples[i])
	}
	return out, nil
}

func (r *runner) loadAudit(samples []Sample) error {
	path := r.cfg.Audit
	switch path {
	case "none":
		return nil
	case "":
		path = filepath.Join(filepath.Dir(r.cfg.Data), "locomo10_audit_errors.json")
		if _, err := os.Stat(path); err != nil {
			return nil
		}
	}
	entries, err := LoadAudit(path)
	if err != nil {
		return err
	}
	r.audit, r.report.AuditUnmatched = MatchAudit(entries, samples)
	return nil
}

// asOfPtr is the conversation's as_of for a recall request; nil (the
// server's now) when no session date parsed.
func (c *conversation) asOfPtr() *time.Time {
	if c.asOf.IsZero() {
		return nil
	}
	at := c.asOf
	return &at
}

func newConversation(s *Sample, prefix string) *conversation {
	return &conversation{sample: s, tenant: tenantName(prefix + s.ID), turns: map[string]bool{}, sources: map[string]string{}}
}

func (r *runner) addNotes() {
	rep := r.report
	if rep.ShortResults > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d questions got fewer than k=%d memories: recall caps memories per domain (--recall-per-domain) and drops those below --recall-min-relevance",
			rep.ShortResults, rep.Questions, rep.K))
	}
	if rep.TurnsMerged > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d turns were merged into another turn's memory (same or near-same text, --dedup-threshold); a recalled memory counts for every turn merged into it", rep.TurnsMerged))
	}
	if rep.TurnsMissing > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d turns were never stored", rep.TurnsMissing))
	}
	if r.audit == nil && r.cfg.Audit != "none" {
		rep.Notes = append(rep.Notes, "no audit file: without_audited and audit_corrected are not reported")
	}
}
