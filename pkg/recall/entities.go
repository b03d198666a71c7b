package recall

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Bounds on the split of a question naming several entities.
const (
	maxEntities      = 4  // entities searched on their own
	entityCandidates = 50 // lexical hits each entity's search adds
)

// questionWords are capitalised words that begin questions, not names.
var questionWords = map[string]bool{"what": true, "who": true, "whom": true, "whose": true, "which": true,
	"when": true, "where": true, "why": true, "how": true, "is": true, "are": true, "was": true, "were": true,
	"do": true, "does": true, "did": true, "can": true, "could": true, "would": true, "should": true,
	"remind": true, "tell": true, "i": true, "the": true, "a": true, "an": true, "and": true, "in": true,
	"on": true, "of": true, "to": true, "for": true, "my": true, "our": true, "have": true, "has": true}

// queryEntities are the entities a query names side by side ("Arjun and
// Bruno", "photo-tagger, recipe-bot or geo-search"): runs of capitalised
// words ("New York") and identifiers holding a hyphen, an underscore or a
// digit ("eu-west-1"), joined by "and", "or", "&" or a comma. An entity
// named alone ("What Go version does ledger-api use?") is not a list:
// none is returned unless two are coordinated.
func queryEntities(query string) []string {
	type span struct {
		name       string
		start, end int // token positions
	}
	var spans []span
	var run []string
	runStart := 0
	flush := func(at int) {
		if len(run) > 0 {
			spans = append(spans, span{strings.Join(run, " "), runStart, at})
			run = run[:0]
		}
	}
	words := strings.Fields(query)
	for i, w := range words {
		t := strings.TrimSuffix(strings.TrimSuffix(strings.Trim(w, `"'.,;:!?()`), "'s"), "’s")
		rs := []rune(t)
		switch {
		case len(rs) > 1 && unicode.IsUpper(rs[0]) && !questionWords[strings.ToLower(t)] && !calendarWords[strings.ToLower(t)]:
			if len(run) == 0 {
				runStart = i
			}
			run = append(run, t)
		case len(rs) > 2 && strings.ContainsFunc(t, func(r rune) bool { return r == '-' || r == '_' || unicode.IsDigit(r) }) &&
			strings.ContainsFunc(t, unicode.IsLetter):
			flush(i)
			runStart = i
			run = append(run, t)
			flush(i + 1)
		default:
			flush(i)
		}
		if strings.ContainsAny(w, ",;:!?") {
			flush(i + 1)
		}
	}
	flush(len(words))
	var out []string
	seen := map[string]bool{}
	add := func(e string) {
		if k := strings.ToLower(e); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	for i := 1; i < len(spans); i++ {
		a, b := spans[i-1], spans[i]
		joined := true
		for _, w := range words[a.end:b.start] {
			if !coordinators[strings.ToLower(strings.Trim(w, ","))] {
				joined = false
			}
		}
		if joined && b.start-a.end <= 1 {
			add(a.name)
			add(b.name)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// calendarWords are capitalised but name a time, not an entity ("on
// Tuesday, May 20").
var calendarWords = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true, "january": true, "february": true, "march": true,
	"april": true, "may": true, "june": true, "july": true, "august": true, "september": true,
	"october": true, "november": true, "december": true}

// coordinators join the entities of a list.
var coordinators = map[string]bool{"and": true, "or": true, "&": true, "": true}

// withoutOthers is the query without the other entities' words: what
// entity e's own search looks for.
func withoutOthers(query string, ents []string, e string) string {
	drop := map[string]bool{}
	for _, o := range ents {
		if o == e {
			continue
		}
		for _, t := range lexical.Terms(o) {
			drop[t] = true
		}
	}
	var keep []string
	for _, t := range lexical.Terms(query) {
		if !drop[t] {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, " ")
}

// perEntity adds, for a query naming two or more entities, each entity's
// own lexical hits (the query without the others' names), so that the
// BM25 scores of one entity's turns are not measured against the other's:
// a memory both searches find keeps its better normalised score. One
// lexical search per entity, no model call; the query's vector scores the
// new candidates. With events (the parts are events a question compares,
// events.go), each part's best hit is marked to be lifted (liftEvents).
func (r *Recaller) perEntity(ctx context.Context, sc *store.Scratch, tenant, query string, vec queryVector, f store.Filter, ents []string, events bool, cands []candidate) ([]candidate, error) {
	v, err := vec(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]int, len(cands))
	for i, c := range cands {
		byID[c.mem.ID] = i
	}
	for _, e := range ents[:min(len(ents), maxEntities)] {
		text := withoutOthers(query, ents, e)
		if text == "" {
			continue // every word of e is another's too: nothing of its own to search
		}
		hits, err := r.store.SearchText(ctx, store.TextQuery{Tenant: tenant, Text: text, K: entityCandidates, Filter: f, Scratch: sc})
		if err != nil {
			return nil, fmt.Errorf("search entity %q: %w", e, err)
		}
		best := bestScore(hits)
		for j := range hits {
			h := &hits[j]
			norm := relativeScore(h.Score, best)
			if i, ok := byID[h.Memory.ID]; ok {
				cands[i].lexical, cands[i].text = math.Max(cands[i].lexical, norm), true
				continue
			}
			cands = append(cands, candidate{mem: &h.Memory, semantic: fairCosine(bestCosine(v, &h.Memory), &h.Memory), lexical: norm, text: true})
			byID[h.Memory.ID] = len(cands) - 1
		}
		if events && len(hits) > 0 {
			cands[byID[hits[0].Memory.ID]].event = true
		}
	}
	return cands, nil
}

// coverEntities makes sure, for a query naming several entities, that each
// has evidence in the first k results: an entity none of them mentions
// gets its best-ranked result that does moved up to the last place of the
// k not needed by another entity. Results are otherwise in rank order.
func coverEntities(results []Result, ents []string, k int) []Result {
	if len(ents) < 2 || len(results) <= k {
		return results
	}
	mentions := func(res Result, e string) bool {
		ts := lexical.Terms(e)
		return len(ts) > 0 && lexical.AnyTerm(res.Memory.Content, func(t string) bool { return t == ts[len(ts)-1] })
	}
	slot := k - 1
	for _, e := range ents[:min(len(ents), maxEntities)] {
		covered := false
		for _, res := range results[:k] {
			if mentions(res, e) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		for j := k; j < len(results); j++ {
			if mentions(results[j], e) {
				moved := results[j]
				copy(results[slot+1:j+1], results[slot:j])
				results[slot] = moved
				slot--
				break
			}
		}
		if slot < 0 {
			break
		}
	}
	return results
}
