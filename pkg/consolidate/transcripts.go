package consolidate

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// transcriptRetention applies the operator's retention of transcript
// memories (one per conversation message): kept by default; with
// TranscriptMaxAge those said longer ago are archived, with TranscriptKeep
// the oldest beyond that many active ones. Archived, never deleted here:
// an archived transcript stays searchable on request and in exports. At
// most MaxArchivePerEpoch go per epoch (the rest wait for the next), so
// turning the policy on for a large tenant does not make one epoch long.
func (r *run) transcriptRetention() {
	if r.rules.TranscriptMaxAge <= 0 && r.rules.TranscriptKeep <= 0 {
		return
	}
	var live []*memory.Memory
	for _, m := range r.transcripts {
		if !m.Archived && r.mutable(m) {
			live = append(live, m)
		}
	}
	// Oldest first by when it was said, ties by id.
	slices.SortFunc(live, func(a, b *memory.Memory) int {
		if c := a.ValidFrom.Compare(b.ValidFrom); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	budget := r.rules.MaxArchivePerEpoch
	if budget <= 0 {
		budget = len(live)
	}
	n := 0
	for i, m := range live {
		if n >= budget {
			break
		}
		var why string
		switch {
		case r.rules.TranscriptMaxAge > 0 && r.now.Sub(m.SaidAt()) > r.rules.TranscriptMaxAge:
			why = fmt.Sprintf("transcript-max-age: said more than %s ago", r.rules.TranscriptMaxAge)
		case r.rules.TranscriptKeep > 0 && len(live)-i > r.rules.TranscriptKeep:
			why = fmt.Sprintf("transcript-keep: over the %d most recent messages", r.rules.TranscriptKeep)
		default:
			// Sorted oldest first: nothing later is older or over the count.
			r.stats.TranscriptsArchived = n
			return
		}
		r.archive(m, PhaseArchive, why)
		r.c.archived.WithLabelValues("transcript").Inc()
		n++
	}
	r.stats.TranscriptsArchived = n
}
