package recall

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/usage"
)

// Bounds on what an expansion sends and keeps.
const (
	maxExpansionChars = 200 // per phrasing; longer ones are cut at a word
	expandMaxTokens   = 400
	// expandSearches bounds the phrasings searched at once: each search is
	// two store queries on the request's path.
	expandSearches = 3
)

const expandSystem = `You help a memory search engine find stored facts. Given a search query, write alternative search phrases that could match how the answer was written down: synonyms, related keywords, the question turned into a statement, names spelled out.
Rules:
- Give at most %d phrases, each under 15 words, none repeating the query.
- If the query is not in English, give phrases in its language and in English.
- Answer with JSON only: {"queries": ["...", "..."]}`

// expand runs 003's query expansion when the request asks for it or, unless
// it says no, when the first pass is weak (best relevance under the
// threshold): the LLM's phrasings go through both channels, each memory
// keeps its best relevance over all phrasings, and the merged candidates
// are ranked as usual. An automatic expansion is kept only when it finds
// something more relevant than the first pass. Any failure returns the
// first pass.
func (r *Recaller) expand(ctx context.Context, req Request, first []hit, results []Result) ([]Result, *Step) {
	step := &Step{Trigger: triggerRequest}
	switch {
	case req.Expand != nil && !*req.Expand:
		return results, nil
	case req.Expand == nil:
		if r.cfg.AutoExpandBelow < 0 || bestRelevance(results) >= r.cfg.AutoExpandBelow || r.chat == nil {
			return results, nil
		}
		if len(first) == 0 { // nothing passes the filters: no phrasing can help
			return results, nil
		}
		step.Trigger = triggerAuto
	}
	if r.chat == nil {
		step.Reason = reasonLLMOff
		return results, step
	}
	phrases, err := r.phrasings(ctx, req)
	if err != nil {
		step.Reason = r.failStep(ctx, stepExpand, req.Tenant, err)
		return results, step
	}
	step.Queries = phrases
	sets, err := r.searchAll(ctx, req, phrases)
	if err != nil {
		step.Reason = r.failStep(ctx, stepExpand, req.Tenant, searchError{err})
		return results, step
	}
	merged := r.rank(mergeHits(append([][]hit{first}, sets...)...), req)
	if step.Trigger == triggerAuto && bestRelevance(merged) <= bestRelevance(results) {
		r.metrics.steps.WithLabelValues(stepExpand, outcomeNotBetter).Inc()
		step.Reason = outcomeNotBetter
		return results, step
	}
	r.metrics.steps.WithLabelValues(stepExpand, outcomeApplied).Inc()
	step.Applied = true
	return merged, step
}

// phrasings asks the expand tier for alternative phrasings of the query,
// within the expansion timeout.
func (r *Recaller) phrasings(ctx context.Context, req Request) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.ExpandTimeout)
	defer cancel()
	resp, err := r.chat.Chat(cctx, llm.Request{
		Tenant: req.Tenant, Component: "query_expand", Tier: llm.TierExpand, JSON: true, MaxTokens: expandMaxTokens,
		System:   fmt.Sprintf(expandSystem, r.cfg.Expansions),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Query: " + req.Query}},
	})
	if err != nil {
		return nil, fmt.Errorf("ask for query expansions: %w", err)
	}
	phrases, err := parsePhrasings(resp.Content, req.Query, r.cfg.Expansions)
	if err != nil {
		return nil, fmt.Errorf("read query expansions: %w", err)
	}
	return phrases, nil
}

// searchAll embeds the phrasings in one call and runs both channels for
// each; it returns one hit set per phrasing.
func (r *Recaller) searchAll(ctx context.Context, req Request, phrases []string) ([][]hit, error) {
	vecs, err := r.model.Embed(usage.WithTenant(ctx, req.Tenant), phrases)
	if err != nil {
		return nil, fmt.Errorf("embed expansions: %w", err)
	}
	if len(vecs) != len(phrases) {
		return nil, fmt.Errorf("embed expansions: model returned %d vectors for %d texts", len(vecs), len(phrases))
	}
	sets := make([][]hit, len(phrases))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(expandSearches)
	for i, p := range phrases {
		g.Go(func() error {
			cands, err := r.search(gctx, req, p, knownVector(vecs[i]))
			if err != nil {
				return fmt.Errorf("search expansion %q: %w", p, err)
			}
			sets[i] = relevances(cands, p, p)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sets, nil
}

// parsePhrasings reads the phrasings from an answer, forgiving its shape:
// {"queries": [...]} (or phrases, expansions, alternatives, keywords), a
// bare array, and items that are strings or objects with a query or text.
// Phrasings are cleaned, cut to maxExpansionChars, deduplicated (the query
// included) and bounded to n.
func parsePhrasings(content, query string, n int) ([]string, error) {
	var v any
	if err := llm.DecodeJSON(content, &v); err != nil {
		return nil, err
	}
	list := findList(v, "queries", "phrases", "expansions", "alternatives", "keywords", "queries_en")
	seen := map[string]bool{strings.ToLower(query): true}
	var out []string
	for _, item := range list {
		s, _ := item.(string)
		if obj, ok := item.(map[string]any); ok {
			s = firstString(obj, "query", "text", "phrase")
		}
		s = cutWords(memory.CleanText(s), maxExpansionChars)
		if s == "" || seen[strings.ToLower(s)] {
			continue
		}
		seen[strings.ToLower(s)] = true
		out = append(out, s)
		if len(out) == n {
			break
		}
	}
	if len(out) == 0 {
		return nil, parseError{fmt.Sprintf("no new phrasing in answer %q", clip(content, 200))}
	}
	return out, nil
}

// findList finds the array in a decoded answer: the value itself, else
// the first of keys holding one, else the only array-valued field.
func findList(v any, keys ...string) []any {
	switch t := v.(type) {
	case []any:
		return t
	case map[string]any:
		for _, k := range keys {
			if l, ok := t[k].([]any); ok {
				return l
			}
		}
		var only []any
		for _, f := range t {
			if l, ok := f.([]any); ok {
				if only != nil {
					return nil
				}
				only = l
			}
		}
		return only
	}
	return nil
}

func firstString(obj map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := obj[k].(string); ok {
			return s
		}
	}
	return ""
}

// cutWords shortens s to at most n runes, at a space when there is one.
func cutWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut)
}

// clip shortens s for a log line or an error.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
