package eval

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"text/tabwriter"
)

// Report is the result of a LoCoMo run. Its embedded Summary covers every
// scored question; WithoutAudited leaves out the questions the audit flags
// and AuditCorrected scores them against the audit's corrected evidence
// (leaving out those whose corrected evidence names no turn).
type Report struct {
	Data          string `json:"data"`
	K             int    `json:"k"`
	Conversations int    `json:"conversations"`
	// Ingest is the path the turns took (turns, compaction, explicit).
	Ingest   string `json:"ingest,omitempty"`
	Turns    int    `json:"turns"`
	Memories int    `json:"memories"`
	// TurnsMerged are turns stored into another turn's memory (an exact or
	// near-duplicate text); TurnsMissing never showed up in any memory.
	TurnsMerged  int `json:"turns_merged"`
	TurnsMissing int `json:"turns_missing"`
	Summary
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// QPS is questions recalled per second, one at a time.
	QPS float64 `json:"qps"`
	// ShortResults counts questions answered with fewer than k memories.
	ShortResults   int      `json:"short_results"`
	WithoutAudited *Summary `json:"without_audited,omitempty"`
	AuditCorrected *Summary `json:"audit_corrected,omitempty"`
	// BM25 is plain BM25 over the turns on the same questions (bm25.go),
	// the baseline.
	BM25           *Summary       `json:"bm25,omitempty"`
	Audited        int            `json:"audited"`
	AuditUnmatched int            `json:"audit_unmatched"`
	Skipped        Skipped        `json:"skipped"`
	Evidence       EvidenceStats  `json:"evidence"`
	IngestSeconds  float64        `json:"ingest_seconds"`
	RecallSeconds  float64        `json:"recall_seconds"`
	Settings       map[string]any `json:"settings,omitempty"`
	Notes          []string       `json:"notes,omitempty"`
}

// Skipped counts questions that were not scored.
type Skipped struct {
	Adversarial int `json:"adversarial"`
	NoEvidence  int `json:"no_evidence"`
}

// WriteTable prints the report for people.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d conversations, %d turns sent as %s, %d memories (%d turns merged, %d missing), k=%d\n",
		r.Data, r.Conversations, r.Turns, r.Ingest, r.Memories, r.TurnsMerged, r.TurnsMissing, r.K)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "set\tcategory\tquestions\trecall_any@5\trecall_any@10\trecall_all@10\tndcg@10\t")
	rows := func(set string, s *Summary) {
		if s == nil {
			return
		}
		row(tw, set, "all", s.Scores)
		cats := make([]string, 0, len(s.ByCategory))
		for c := range s.ByCategory {
			cats = append(cats, c)
		}
		sort.Slice(cats, func(i, j int) bool {
			a, _ := strconv.Atoi(cats[i])
			b, _ := strconv.Atoi(cats[j])
			return a < b
		})
		for _, c := range cats {
			cs := s.ByCategory[c]
			row(tw, "", c+" "+cs.Name, cs.Scores)
		}
	}
	rows("all", &r.Summary)
	rows("without audited", r.WithoutAudited)
	rows("audit-corrected", r.AuditCorrected)
	rows("plain BM25", r.BM25)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "recall latency p50 %.2f ms, p99 %.2f ms; %d questions got fewer than %d memories\n", r.P50Ms, r.P99Ms, r.ShortResults, r.K)
	fmt.Fprintf(w, "skipped: %d adversarial, %d without usable evidence; evidence repaired %d, dropped %d, unknown %d; audited %d (unmatched %d)\n",
		r.Skipped.Adversarial, r.Skipped.NoEvidence, r.Evidence.Repaired, r.Evidence.Dropped, r.Evidence.Unknown, r.Audited, r.AuditUnmatched)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

func row(w io.Writer, set, cat string, s Scores) {
	fmt.Fprintf(w, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", set, cat, s.Questions, s.RecallAny5, s.RecallAny10, s.RecallAll10, s.NDCG10)
}
