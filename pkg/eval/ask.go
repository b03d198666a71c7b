package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"time"
)

// questionResult is one line of --out.
type questionResult struct {
	Sample          string     `json:"sample"`
	Index           int        `json:"index"`
	Category        int        `json:"category"`
	Question        string     `json:"question"`
	Evidence        []string   `json:"evidence"`
	Audited         bool       `json:"audited,omitempty"`
	CorrectEvidence []string   `json:"correct_evidence,omitempty"`
	Recalled        [][]string `json:"recalled"`
	Ms              float64    `json:"ms"`
	Scores
}

// ask recalls every scored question, in order, and tallies the scores of
// all questions, of those the audit does not flag, and with the audit's
// corrected evidence.
func (r *runner) ask(ctx context.Context) (err error) {
	var out *json.Encoder
	if r.cfg.Out != "" {
		f, err := os.Create(r.cfg.Out)
		if err != nil {
			return fmt.Errorf("create %s: %w", r.cfg.Out, err)
		}
		defer func() {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("write %s: %w", r.cfg.Out, cerr)
			}
		}()
		out = json.NewEncoder(f)
	}
	all, clean, corrected, bm := newTally(), newTally(), newTally(), newTally()
	var lat []time.Duration
	total, asked := 0, 0
	for _, c := range r.convs {
		total += len(c.sample.QA)
	}
	for _, c := range r.convs {
		base := sampleBM25(c.sample, r.cfg.Captions)
		for _, qa := range c.sample.QA {
			r.cfg.progress(StageQuestions, asked, total) // those before this one are done
			asked++
			if qa.Category == AdversarialCategory {
				r.report.Skipped.Adversarial++
				continue
			}
			gold := r.gold(c, qa.Evidence, &r.report.Evidence)
			if len(gold) == 0 {
				r.report.Skipped.NoEvidence++
				continue
			}
			t0 := time.Now()
			mems, err := r.client.recallAt(ctx, c.tenant, qa.Question, r.cfg.K, c.asOfPtr())
			if err != nil {
				return err
			}
			took := time.Since(t0)
			lat = append(lat, took)
			if len(mems) < r.cfg.K {
				r.report.ShortResults++
			}
			ranked := make([][]string, len(mems))
			for i, m := range mems {
				ranked[i] = c.diaIDs(m)
			}
			s := Score(ranked, gold)
			all.add(qa.Category, s)
			bm.add(qa.Category, Score(base.rankedIDs(qa.Question, r.cfg.K), gold))
			res := questionResult{Sample: c.sample.ID, Index: qa.Index, Category: qa.Category, Question: qa.Question,
				Evidence: gold, Recalled: ranked, Ms: round4(ms(took)), Scores: s}
			if a, audited := r.audit[QAKey{c.sample.ID, qa.Index}]; audited {
				r.report.Audited++
				res.Audited = true
				var ignored EvidenceStats
				if fixed := r.gold(c, a.CorrectEvidence, &ignored); len(fixed) > 0 {
					res.CorrectEvidence = fixed
					corrected.add(qa.Category, Score(ranked, fixed))
				}
			} else {
				clean.add(qa.Category, s)
				corrected.add(qa.Category, s)
			}
			if out != nil {
				if err := out.Encode(res); err != nil {
					return fmt.Errorf("write %s: %w", r.cfg.Out, err)
				}
			}
		}
	}
	r.cfg.progress(StageQuestions, asked, total)
	r.report.Summary = all.summary()
	b := bm.summary()
	r.report.BM25 = &b
	if r.audit != nil {
		wo, co := clean.summary(), corrected.summary()
		r.report.WithoutAudited, r.report.AuditCorrected = &wo, &co
	}
	r.report.P50Ms, r.report.P99Ms = percentiles(lat)
	return nil
}

// gold cleans evidence and keeps the ids of turns the conversation has.
func (r *runner) gold(c *conversation, evidence []string, stats *EvidenceStats) []string {
	var out []string
	for _, id := range NormalizeEvidence(evidence, stats) {
		if !c.turns[id] {
			stats.Unknown++
			continue
		}
		out = append(out, id)
	}
	return out
}

func percentiles(lat []time.Duration) (p50, p99 float64) {
	if len(lat) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(lat)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return round4(ms(sorted[len(sorted)/2])), round4(ms(sorted[min(len(sorted)-1, len(sorted)*99/100)]))
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
