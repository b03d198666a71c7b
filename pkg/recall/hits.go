package recall

import (
	"context"
	"slices"

	"github.com/recollect-dev/recollect/pkg/alias"

	"github.com/recollect-dev/recollect/pkg/lexical"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/scope"
)

// hit is a candidate with its relevance to the query that found it best:
// the request's query, or an alternative phrasing (expansion).
type hit struct {
	candidate
	rel       float64
	expansion string // "" for the request's query
}

// Scoped retrieval filters after both channels, so each asks for more
// candidates to keep enough once memories scoped to other files are gone.
const (
	scopeOversample     = 4
	maxScopedCandidates = 2000
)

// search runs both channels for one phrasing of the request, and the time
// channel when the request names a narrow time window (timechannel.go).
func (r *Recaller) search(ctx context.Context, req Request, text string, vec queryVector) ([]candidate, error) {
	k := r.cfg.Candidates
	var keep func(memory.Memory) bool
	if file := req.Filters.FilePath; file != "" {
		k = max(k, min(k*scopeOversample, maxScopedCandidates))
		keep = func(m memory.Memory) bool { return scope.Applies(m.Scope, file) }
	}
	f, _ := timeFilter(req, r.filter(req))
	if !slices.Contains(req.Filters.Tags, alias.Tag) {
		// Alias memories expand queries (aliases.go); they are not answers.
		f.ExcludeTags = append(f.ExcludeTags, alias.Tag)
	}
	text, err := r.withAliases(ctx, req, text)
	if err != nil {
		return nil, err
	}
	days := queryDays(req)
	ents, events := r.splitEntities(req.Query), false
	if len(ents) == 0 && !r.cfg.NoEntitySplit {
		ents = comparedEvents(req.Query)
		events = len(ents) > 0
	}
	if (len(days) == 0 || r.cfg.NoTimeChannel) && len(ents) == 0 && req.session == "" {
		return r.retrieve(ctx, req.scratch, req.Tenant, vec, text, f, k, keep)
	}
	vec = onceVector(vec)
	cands, err := r.retrieve(ctx, req.scratch, req.Tenant, vec, text, f, k, keep)
	if err != nil {
		return nil, err
	}
	if req.session != "" {
		if cands, err = r.addSessionHits(ctx, req.scratch, req.Tenant, req.session, vec, f, keep, cands); err != nil {
			return nil, err
		}
	}
	if len(ents) > 0 && keep == nil {
		if cands, err = r.perEntity(ctx, req.scratch, req.Tenant, req.Query, vec, f, ents, events, cands); err != nil {
			return nil, err
		}
	}
	if len(days) == 0 || r.cfg.NoTimeChannel {
		return cands, nil
	}
	return r.addTimeHits(ctx, req.scratch, req.Tenant, vec, f, days, timeTermShare(req), keep, cands)
}

// relevances fuses each candidate's signals for query (its adaptive
// weights and terms); expansion names the phrasing when query is one.
func relevances(cands []candidate, query, expansion string) []hit {
	w := weightsFor(query, cands)
	terms := map[string]bool{}
	for _, t := range lexical.Terms(query) {
		terms[t] = true
	}
	out := make([]hit, len(cands))
	for i, c := range cands {
		out[i] = hit{candidate: c, rel: relevance(c, w, terms), expansion: expansion}
	}
	return out
}

// mergeHits keeps, per memory, the hit with the highest relevance over
// every phrasing; the first set (the request's query) wins ties.
func mergeHits(sets ...[]hit) []hit {
	var out []hit
	at := map[string]int{}
	for _, set := range sets {
		for _, h := range set {
			i, ok := at[h.mem.ID]
			if !ok {
				at[h.mem.ID] = len(out)
				out = append(out, h)
				continue
			}
			if h.rel > out[i].rel {
				out[i] = h
			}
		}
	}
	return out
}

// bestRelevance is the highest relevance among results, 0 when none.
func bestRelevance(results []Result) float64 {
	best := 0.0
	for _, res := range results {
		best = max(best, res.Relevance)
	}
	return best
}

// splitEntities are the entities the query names when it names two or
// more and the split is on (entities.go); else none.
func (r *Recaller) splitEntities(query string) []string {
	if r.cfg.NoEntitySplit {
		return nil
	}
	if ents := queryEntities(query); len(ents) >= 2 {
		return ents
	}
	return nil
}
