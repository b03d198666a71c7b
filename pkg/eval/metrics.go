package eval

import (
	"math"
	"slices"
	"strconv"
)

// The metrics follow LongMemEval's retrieval evaluation (eval_utils.py):
// a question's gold set is its evidence turns; ranked holds, best first, the
// evidence ids each recalled memory stands for (one turn, or several when the
// store merged identical turns into one memory). A memory is relevant when
// it holds any gold id. Callers leave out questions without gold ids.

// RecallAny is 1 when a gold id is among the first k results, else 0.
func RecallAny(ranked [][]string, gold []string, k int) float64 {
	found := foundIn(ranked, k)
	for _, g := range gold {
		if found[g] {
			return 1
		}
	}
	return 0
}

// RecallAll is 1 when every gold id is among the first k results, else 0
// (and 0 for an empty gold set).
func RecallAll(ranked [][]string, gold []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	found := foundIn(ranked, k)
	for _, g := range gold {
		if !found[g] {
			return 0
		}
	}
	return 1
}

// NDCG is nDCG@k with binary relevance: the DCG of the first k results over
// the DCG of min(k, |gold|) relevant results. A result is relevant when it
// holds a gold id no earlier result held: two memories made from one turn
// (its transcript and a fact extracted from it) credit that turn once, so
// the score never exceeds 1.
func NDCG(ranked [][]string, gold []string, k int) float64 {
	if len(gold) == 0 || k <= 0 {
		return 0
	}
	rels := make([]float64, 0, k)
	credited := map[string]bool{}
	for _, ids := range ranked[:min(k, len(ranked))] {
		rel := 0.0
		for _, id := range ids {
			if slices.Contains(gold, id) && !credited[id] {
				credited[id] = true
				rel = 1
			}
		}
		rels = append(rels, rel)
	}
	ideal := make([]float64, min(k, len(gold)))
	for i := range ideal {
		ideal[i] = 1
	}
	return dcg(rels) / dcg(ideal)
}

// dcg is LongMemEval's discounted cumulative gain: rel₁ + Σ_{i≥2} relᵢ/log₂(i)
// (the first two positions weigh the same, unlike the log₂(i+1) variant).
func dcg(rels []float64) float64 {
	if len(rels) == 0 {
		return 0
	}
	sum := rels[0]
	for i := 1; i < len(rels); i++ {
		sum += rels[i] / math.Log2(float64(i+1))
	}
	return sum
}

func foundIn(ranked [][]string, k int) map[string]bool {
	found := map[string]bool{}
	for _, ids := range ranked[:min(max(k, 0), len(ranked))] {
		for _, id := range ids {
			found[id] = true
		}
	}
	return found
}

// Scores are mean metrics over a set of questions.
type Scores struct {
	Questions   int     `json:"questions"`
	RecallAny5  float64 `json:"recall_any@5"`
	RecallAny10 float64 `json:"recall_any@10"`
	RecallAll10 float64 `json:"recall_all@10"`
	NDCG10      float64 `json:"ndcg@10"`
}

// Score computes one question's metrics (Questions = 1).
func Score(ranked [][]string, gold []string) Scores {
	return Scores{Questions: 1,
		RecallAny5: RecallAny(ranked, gold, 5), RecallAny10: RecallAny(ranked, gold, 10),
		RecallAll10: RecallAll(ranked, gold, 10), NDCG10: NDCG(ranked, gold, 10)}
}

// CategoryScores are the scores of one question category.
type CategoryScores struct {
	Name string `json:"name"`
	Scores
}

// Summary is overall and per-category scores of a set of questions.
type Summary struct {
	Scores
	ByCategory map[string]CategoryScores `json:"by_category"`
}

// tally accumulates per-question scores into a Summary.
type tally struct {
	all   Scores
	byCat map[int]*Scores
	name  func(int) string // names a category; LoCoMo's by default
}

func newTally() *tally { return &tally{byCat: map[int]*Scores{}, name: CategoryName} }

func (t *tally) add(category int, s Scores) {
	addScores(&t.all, s)
	c := t.byCat[category]
	if c == nil {
		c = &Scores{}
		t.byCat[category] = c
	}
	addScores(c, s)
}

func addScores(sum *Scores, s Scores) {
	sum.Questions += s.Questions
	sum.RecallAny5 += s.RecallAny5
	sum.RecallAny10 += s.RecallAny10
	sum.RecallAll10 += s.RecallAll10
	sum.NDCG10 += s.NDCG10
}

func meanScores(sum Scores) Scores {
	if sum.Questions == 0 {
		return sum
	}
	n := float64(sum.Questions)
	return Scores{Questions: sum.Questions, RecallAny5: round4(sum.RecallAny5 / n), RecallAny10: round4(sum.RecallAny10 / n),
		RecallAll10: round4(sum.RecallAll10 / n), NDCG10: round4(sum.NDCG10 / n)}
}

func (t *tally) summary() Summary {
	out := Summary{Scores: meanScores(t.all), ByCategory: map[string]CategoryScores{}}
	for c, s := range t.byCat {
		out.ByCategory[strconv.Itoa(c)] = CategoryScores{Name: t.name(c), Scores: meanScores(*s)}
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
