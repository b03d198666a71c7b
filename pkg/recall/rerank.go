package recall

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/recollect-dev/recollect/pkg/llm"
)

// Bounds on what a rerank sends.
const (
	rerankContentChars   = 400 // per candidate; longer contents are cut at a word
	rerankTokensPerEntry = 16
)

const rerankSystem = `You rerank the results of a memory search. Judge how well each numbered memory helps answer the query: 1 means it answers it, 0 means it is unrelated.
Answer with JSON only, every memory listed once, most relevant first: {"ranking": [{"id": 3, "score": 0.9}, {"id": 1, "score": 0.2}]}`

// rerank has the rerank tier reorder the best candidates (003 §4.5) when
// the request asks, or by the server's default when it does not say. The
// LLM's judgement is blended with the fused score (blendRerank); on any
// failure the order is unchanged.
func (r *Recaller) rerank(ctx context.Context, req Request, results []Result) ([]Result, *Step) {
	step := &Step{Trigger: triggerRequest}
	switch {
	case req.Rerank != nil && !*req.Rerank:
		return results, nil
	case req.Rerank == nil && !r.cfg.Rerank:
		return results, nil
	case req.Rerank == nil:
		step.Trigger = triggerDefault
	}
	if r.chat == nil {
		step.Reason = reasonLLMOff
		return results, step
	}
	if len(results) == 0 {
		step.Reason = reasonNoCandidates
		return results, step
	}
	n := min(r.cfg.RerankTop, len(results))
	judged, err := r.judge(ctx, req, results[:n])
	if err != nil {
		step.Reason = r.failStep(ctx, stepRerank, req.Tenant, err)
		return results, step
	}
	r.metrics.steps.WithLabelValues(stepRerank, outcomeApplied).Inc()
	step.Applied, step.Reranked = true, n
	return blendRerank(results, judged, r.cfg.RerankWeight), step
}

// blendRerank gives each of the first len(judged) results the score
//
//	(1 - weight) * fused + weight * llm
//
// (003: "scores interpolated"), where llm is the model's judgement in
// [0, 1] (0 for a candidate it left out), and reorders them by it. They
// stay ahead of the results the model did not see, whose scores are
// unchanged, so a rerank reorders the top without letting unjudged
// candidates jump over judged ones.
func blendRerank(results []Result, judged []float64, weight float64) []Result {
	out := append([]Result(nil), results...)
	top := out[:len(judged)]
	for i := range top {
		fused, j := top[i].Score, judged[i]
		top[i].FusedScore, top[i].Rerank = &fused, &j
		top[i].Score = (1-weight)*fused + weight*j
	}
	sortResults(top)
	return out
}

// judge asks the rerank tier for a judgement of each candidate, in order.
func (r *Recaller) judge(ctx context.Context, req Request, cands []Result) ([]float64, error) {
	var b strings.Builder
	b.WriteString("Query: " + req.Query + "\n\nMemories:\n")
	for i, c := range cands {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, strings.ReplaceAll(cutWords(c.Memory.Content, rerankContentChars), "\n", " "))
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.RerankTimeout)
	defer cancel()
	resp, err := r.chat.Chat(cctx, llm.Request{
		Tenant: req.Tenant, Component: "rerank", Tier: llm.TierRerank, JSON: true, System: rerankSystem,
		MaxTokens: 64 + rerankTokensPerEntry*len(cands),
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: b.String()}},
	})
	if err != nil {
		return nil, fmt.Errorf("ask for a rerank of %d memories: %w", len(cands), err)
	}
	judged, err := parseRanking(resp.Content, len(cands))
	if err != nil {
		return nil, fmt.Errorf("read rerank: %w", err)
	}
	return judged, nil
}

// parseRanking reads a judgement in [0, 1] for each of n numbered
// candidates, forgiving the answer's shape: a list under "ranking" (or
// results, order, ranked, scores) or bare, of objects with an id (or
// index) and a score (or relevance), or of bare ids in order; or an object
// of id → score. Ids may be strings like "3" or "[3]". Scores on a 0-10 or
// 0-100 scale are brought to [0, 1]; a ranking without scores gives 1 to
// the first and falls evenly. Unknown and repeated ids are ignored, and
// candidates left out get 0. An answer naming no candidate is an error.
func parseRanking(content string, n int) ([]float64, error) {
	var v any
	if err := llm.DecodeJSON(content, &v); err != nil {
		return nil, err
	}
	type entry struct {
		id       int
		score    float64
		hasScore bool
	}
	var entries []entry
	if list := findList(v, "ranking", "results", "order", "ranked", "scores"); list != nil {
		for _, item := range list {
			e := entry{id: -1}
			switch t := item.(type) {
			case map[string]any:
				e.id = asID(firstOf(t, "id", "index", "memory", "n"))
				e.score, e.hasScore = asScore(firstOf(t, "score", "relevance", "rating"))
			default:
				e.id = asID(t)
			}
			entries = append(entries, e)
		}
	} else if obj, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := entry{id: asID(k)}
			e.score, e.hasScore = asScore(obj[k])
			entries = append(entries, e)
		}
	}
	seen := make([]bool, n)
	var kept []entry
	allScored, top := true, 0.0
	for _, e := range entries {
		if e.id < 1 || e.id > n || seen[e.id-1] {
			continue
		}
		seen[e.id-1] = true
		kept = append(kept, e)
		allScored = allScored && e.hasScore
		top = math.Max(top, e.score)
	}
	if len(kept) == 0 {
		return nil, parseError{fmt.Sprintf("no candidate named in answer %q", clip(content, 200))}
	}
	scale := 1.0
	switch {
	case top > 10:
		scale = 100
	case top > 1:
		scale = 10
	}
	out := make([]float64, n)
	for pos, e := range kept {
		s := 1 - float64(pos)/float64(len(kept))
		if allScored {
			s = math.Max(0, math.Min(1, e.score/scale))
		}
		out[e.id-1] = s
	}
	return out, nil
}

func firstOf(obj map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return v
		}
	}
	return nil
}

// asID reads a candidate number: 3, 3.0, "3" or "[3]"; -1 when none.
func asID(v any) int {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) {
			return int(t)
		}
	case string:
		if id, err := strconv.Atoi(strings.Trim(strings.TrimSpace(t), "[]#")); err == nil {
			return id
		}
	}
	return -1
}

// asScore reads a score: a number or a numeric string, never negative.
func asScore(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			return math.Max(0, t), true
		}
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return math.Max(0, f), true
		}
	}
	return 0, false
}
