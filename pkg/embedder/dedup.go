package embedder

import (
	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// match is what the dense candidates say about a new fact.
type match struct {
	// dup is a near duplicate: the fact reinforces it and is not stored.
	dup *memory.Memory
	// merge is the best candidate close enough for the LLM to judge
	// whether the two are one fact (nil when dup is set).
	merge *store.Hit
}

// classify applies the insert-time dedup rule to the dense hits (best
// first) of a new fact m:
//
//   - near duplicate (Bernard's 0.92, engram's find_near_duplicate): the
//     first hit whose token-set Jaccard with m exceeds DedupJaccard (the
//     pre-filter, 003's DEDUP_JACCARD_PREFILTER 0.50, strict as there) AND
//     whose cosine is at least DedupThreshold. Both must hold: a paraphrase
//     sharing few words is not dropped on cosine alone, and a pair sharing
//     words but saying something else is not dropped on Jaccard alone.
//   - merge candidate (003's insert merge, INSERT_MERGE_SIM 0.80): else the
//     best hit with cosine at least MergeThreshold. With an LLM it judges
//     whether they are the same fact; this includes a pair with cosine
//     above DedupThreshold that the Jaccard pre-filter kept apart.
//   - otherwise the fact is new.
//
// The fact's own id is never a candidate.
func (e *Embedder) classify(m memory.Memory, hits []store.Hit) match {
	var terms map[string]struct{}
	var out match
	for i := range hits {
		h := &hits[i]
		if h.Memory.ID == m.ID {
			continue
		}
		if h.Score >= e.cfg.DedupThreshold {
			if terms == nil {
				terms = termSet(m.Content)
			}
			if jaccard(terms, termSet(h.Memory.Content)) > e.cfg.DedupJaccard {
				return match{dup: &h.Memory}
			}
		}
		if out.merge == nil && h.Score >= e.cfg.MergeThreshold {
			out.merge = h
		}
	}
	return out
}

// termSet is the set of a text's normalised terms: lowercased, stemmed,
// stopwords dropped, as package lexical indexes them.
func termSet(text string) map[string]struct{} {
	terms := lexical.Terms(text)
	set := make(map[string]struct{}, len(terms))
	for _, t := range terms {
		set[t] = struct{}{}
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b|; two texts without terms (only stopwords
// or symbols) count as identical, leaving the decision to the cosine.
func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for t := range a {
		if _, ok := b[t]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
