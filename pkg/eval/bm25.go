package eval

import (
	"math"
	"sort"

	"github.com/recollect-dev/recollect/pkg/lexical"
)

// Plain BM25 is the baseline every recall figure is compared with: each
// turn of a conversation one document (as stored, "<speaker>: <text>"),
// the query's terms as package lexical analyses them, the textbook
// parameters (k1 1.2, b 0.75, the conversation's own average length), no
// time, no meaning, no fusion. It runs in the evaluator, not the server.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Index ranks one conversation's turns.
type bm25Index struct {
	ids    []string
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

func newBM25Index(ids, texts []string) *bm25Index {
	x := &bm25Index{ids: ids, df: map[string]int{}}
	total := 0
	for _, text := range texts {
		tf := map[string]int{}
		terms := lexical.Terms(text)
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			x.df[t]++
		}
		x.tf = append(x.tf, tf)
		x.length = append(x.length, len(terms))
		total += len(terms)
	}
	if len(texts) > 0 {
		x.avg = float64(total) / float64(len(texts))
	}
	return x
}

// rank returns the ids of the best k turns for query, best first; turns
// sharing no term with it are never returned. Ties go to the earlier turn.
func (x *bm25Index) rank(query string, k int) []string {
	n := len(x.ids)
	seen := map[string]bool{}
	scores := make([]float64, n)
	for _, t := range lexical.Terms(query) {
		if seen[t] || x.df[t] == 0 {
			continue
		}
		seen[t] = true
		idf := math.Log(1 + (float64(n)-float64(x.df[t])+0.5)/(float64(x.df[t])+0.5))
		for i, tf := range x.tf {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			norm := 1 - bm25B + bm25B*float64(x.length[i])/x.avg
			scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
	}
	order := make([]int, 0, n)
	for i, s := range scores {
		if s > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	out := make([]string, 0, min(k, len(order)))
	for _, i := range order[:min(k, len(order))] {
		out = append(out, x.ids[i])
	}
	return out
}

// sampleBM25 indexes a conversation's turns as they are stored.
func sampleBM25(s *Sample, captions bool) *bm25Index {
	var ids, texts []string
	for _, se := range s.Sessions {
		for _, t := range se.Turns {
			ids = append(ids, t.DiaID)
			texts = append(texts, TurnContent(t, captions))
		}
	}
	return newBM25Index(ids, texts)
}

// rankedIDs is rank's answer in the shape Score reads.
func (x *bm25Index) rankedIDs(query string, k int) [][]string {
	got := x.rank(query, k)
	out := make([][]string, len(got))
	for i, id := range got {
		out[i] = []string{id}
	}
	return out
}
