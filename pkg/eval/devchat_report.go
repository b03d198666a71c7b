package eval

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// DevChatReport is the result of a DevChat run: scores overall and per
// category, and how update questions ranked the newest evidence.
type DevChatReport struct {
	Data          string `json:"data"`
	K             int    `json:"k"`
	Conversations int    `json:"conversations"`
	Ingest        string `json:"ingest,omitempty"`
	Turns         int    `json:"turns"`
	Memories      int    `json:"memories"`
	TurnsMerged   int    `json:"turns_merged"`
	TurnsMissing  int    `json:"turns_missing"`
	Summary
	Updates UpdateScores `json:"updates"`
	// Newer is newer-above-older for every category whose questions list
	// stale evidence (update, thread-update).
	Newer map[string]UpdateScores `json:"newer_by_category,omitempty"`
	// BM25 is plain BM25's score on the same questions.
	BM25  *DevChatBaseline `json:"bm25,omitempty"`
	P50Ms float64          `json:"p50_ms"`
	P99Ms float64          `json:"p99_ms"`
	// QPS is questions recalled per second, one at a time.
	QPS          float64 `json:"qps"`
	ShortResults int     `json:"short_results"`
	// AsOf says whether recall requests carried the conversation's as_of.
	AsOf          string         `json:"as_of"`
	IngestSeconds float64        `json:"ingest_seconds"`
	RecallSeconds float64        `json:"recall_seconds"`
	Settings      map[string]any `json:"settings,omitempty"`
	Notes         []string       `json:"notes,omitempty"`
}

// WriteTable prints the report for people.
func (r *DevChatReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d conversations, %d turns sent as %s, %d memories (%d turns merged, %d missing), k=%d, as_of %s\n",
		r.Data, r.Conversations, r.Turns, r.Ingest, r.Memories, r.TurnsMerged, r.TurnsMissing, r.K, r.AsOf)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tquestions\trecall_any@5\trecall_any@10\trecall_all@10\tndcg@10\tbm25 any@10\tbm25 all@10\tbm25 ndcg@10\t")
	base := func(s Scores) string { return "\t\t\t" }
	var bm Summary
	if r.BM25 != nil {
		bm = r.BM25.Summary
		base = func(s Scores) string {
			return fmt.Sprintf("%.3f\t%.3f\t%.3f\t", s.RecallAny10, s.RecallAll10, s.NDCG10)
		}
	}
	fmt.Fprintf(tw, "all\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", r.Questions, r.RecallAny5, r.RecallAny10, r.RecallAll10, r.NDCG10, base(bm.Scores))
	for i, name := range DevChatCategories {
		if cs, ok := r.ByCategory[fmt.Sprint(i+1)]; ok {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", name, cs.Questions, cs.RecallAny5, cs.RecallAny10, cs.RecallAll10, cs.NDCG10,
				base(bm.ByCategory[fmt.Sprint(i+1)].Scores))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, cat := range DevChatCategories {
		u, ok := r.Newer[cat]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "%s: newer above older %.3f of %d (%.3f when both recalled); both %d, newer only %d, older only %d, neither %d",
			cat, u.NewerAboveOlder, u.Questions, u.NewerAboveOlderBoth, u.Both, u.NewerOnly, u.OlderOnly, u.Neither)
		if r.BM25 != nil {
			fmt.Fprintf(w, "; plain BM25 %.3f", r.BM25.Newer[cat].NewerAboveOlder)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "recall latency p50 %.2f ms, p99 %.2f ms, %.1f questions/s; %d questions got fewer than %d memories\n",
		r.P50Ms, r.P99Ms, r.QPS, r.ShortResults, r.K)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}
