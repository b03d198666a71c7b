package embedder

import (
	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/samefact"
	"github.com/recollect-dev/recollect/pkg/store"
)

// match is what the dense candidates say about a new fact.
type match struct {
	// dup is a near duplicate saying the same thing: the fact reinforces
	// it and is not stored.
	dup *memory.Memory
	// merge is the best candidate close enough for the LLM to judge
	// whether the two are one fact (nil when dup is set).
	merge *store.Hit
	// apart is the first near duplicate that passed the similarity screen
	// but says something else (nil when none did, or dup is set).
	apart *keptApart
}

// keptApart is a near duplicate the detail check kept apart from the fact.
type keptApart struct {
	id      string
	verdict samefact.Result
}

// classify applies the insert-time dedup rule to the dense hits (best
// first) of a new fact m:
//
//   - the similarity screen (Bernard's 0.92, engram's find_near_duplicate):
//     a hit passes when its token-set Jaccard with m exceeds DedupJaccard
//     (003's DEDUP_JACCARD_PREFILTER 0.50, strict as there) AND its cosine
//     is at least DedupThreshold. Both must hold: a paraphrase sharing few
//     words is not folded on cosine alone, nor a pair sharing words but
//     saying something else on Jaccard alone.
//   - the verdict (package samefact): a hit that passed the screen is a
//     near duplicate only when it says the same thing: no number, date,
//     name, negation, key or word differing, none on the other side of an
//     "over" or "than", and nothing new in m. A current memory wins over a
//     superseded or archived one, which reinforcing revives.
//   - merge candidate (003's insert merge, INSERT_MERGE_SIM 0.80): else
//     the best current hit with cosine at least MergeThreshold whose
//     verdict allows a merge (same; richer: m adds a detail or a word;
//     reworded: other words, synonyms or not). With an LLM it judges
//     whether they are the same fact; this includes a pair the screen or
//     the verdict kept from being folded blindly.
//   - a conflicting or different hit is never folded nor merged: the
//     fact is stored as its own memory (an update is the consolidator's
//     reconcile to find).
//
// The fact's own id is never a candidate. merges says whether a merge
// candidate is wanted (insert-merge runs only with an LLM): without one a
// hit below the screen needs no verdict, which on long memories is most
// of classify's cost.
func (e *Embedder) classify(m memory.Memory, hits []store.Hit, merges bool) match {
	var terms map[string]struct{}
	var out match
	var stale *memory.Memory
	for i := range hits {
		h := &hits[i]
		if h.Memory.ID == m.ID || h.Score < e.cfg.MergeThreshold {
			continue
		}
		screened := false
		if h.Score >= e.cfg.DedupThreshold {
			if terms == nil {
				terms = termSet(m.Content)
			}
			screened = jaccard(terms, termSet(h.Memory.Content)) > e.cfg.DedupJaccard
		}
		mergeable := merges && out.merge == nil && current(h.Memory)
		if !screened && !mergeable {
			continue
		}
		v := samefact.Compare(h.Memory, m)
		if screened {
			switch {
			case v.Folds() && current(h.Memory):
				return match{dup: &h.Memory}
			case v.Folds():
				if stale == nil {
					stale = &h.Memory
				}
			case out.apart == nil:
				out.apart = &keptApart{id: h.Memory.ID, verdict: v}
			}
		}
		if mergeable && v.Mergeable() {
			out.merge = h
		}
	}
	if stale != nil {
		return match{dup: stale}
	}
	return out
}

// current reports a memory that is neither superseded nor archived: one a
// new fact may be merged into.
func current(m memory.Memory) bool { return m.InvalidAt == nil && !m.Archived }

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
