package eval

import (
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func TestMetrics(t *testing.T) {
	// Hand-computed with LongMemEval's DCG: position 1 and 2 weigh 1,
	// position i ≥ 2 weighs 1/log2(i): 1/log2(3) = 0.63093, 1/log2(4) = 0.5.
	twelve := [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}, {"i"}, {"j"}, {"z"}, {"y"}}
	cases := []struct {
		name           string
		ranked         [][]string
		gold           []string
		k              int
		any, all, ndcg float64
	}{
		{name: "first", ranked: [][]string{{"a"}, {"b"}}, gold: []string{"a"}, k: 10, any: 1, all: 1, ndcg: 1},
		{name: "second weighs like first", ranked: [][]string{{"x"}, {"a"}, {"y"}}, gold: []string{"a"}, k: 10, any: 1, all: 1, ndcg: 1},
		{name: "third", ranked: [][]string{{"x"}, {"y"}, {"a"}}, gold: []string{"a"}, k: 10, any: 1, all: 1, ndcg: 0.63093},
		{name: "two of two, second at 3", ranked: [][]string{{"a"}, {"x"}, {"c"}}, gold: []string{"a", "c"}, k: 10, any: 1, all: 1, ndcg: 1.63093 / 2},
		{name: "one of two at 4", ranked: [][]string{{"x"}, {"y"}, {"z"}, {"c"}}, gold: []string{"a", "c"}, k: 10, any: 1, all: 0, ndcg: 0.5 / 2},
		{name: "cut at k", ranked: [][]string{{"x"}, {"y"}, {"a"}}, gold: []string{"a"}, k: 2, any: 0, all: 0, ndcg: 0},
		{name: "ideal is min(k, gold)", ranked: [][]string{{"a"}, {"b"}}, gold: []string{"a", "b", "c"}, k: 2, any: 1, all: 0, ndcg: 1},
		{name: "merged memory holds two gold turns", ranked: [][]string{{"x"}, {"a", "b"}}, gold: []string{"a", "b", "c"}, k: 10, any: 1, all: 0, ndcg: 1 / 2.63093},
		{name: "merged memory completes recall_all", ranked: [][]string{{"x", "a"}, {"b"}}, gold: []string{"a", "b"}, k: 10, any: 1, all: 1, ndcg: 1},
		{name: "two memories of one turn credit it once", ranked: [][]string{{"a"}, {"a"}, {"x"}}, gold: []string{"a"}, k: 10, any: 1, all: 1, ndcg: 1},
		{name: "nothing recalled", ranked: nil, gold: []string{"a"}, k: 10, any: 0, all: 0, ndcg: 0},
		{name: "no gold", ranked: [][]string{{"a"}}, gold: nil, k: 10, any: 0, all: 0, ndcg: 0},
		{name: "position 11 is out of @10", ranked: twelve, gold: []string{"z"}, k: 10, any: 0, all: 0, ndcg: 0},
		{name: "position 10", ranked: twelve, gold: []string{"j"}, k: 10, any: 1, all: 1, ndcg: 1 / math.Log2(10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RecallAny(c.ranked, c.gold, c.k); got != c.any {
				t.Errorf("RecallAny = %v, want %v", got, c.any)
			}
			if got := RecallAll(c.ranked, c.gold, c.k); got != c.all {
				t.Errorf("RecallAll = %v, want %v", got, c.all)
			}
			if got := NDCG(c.ranked, c.gold, c.k); !near(got, c.ndcg) {
				t.Errorf("NDCG = %v, want %v", got, c.ndcg)
			}
		})
	}
}

func TestScoreCutoffs(t *testing.T) {
	ranked := [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}}
	s := Score(ranked, []string{"f", "zz"})
	want := Scores{Questions: 1, RecallAny5: 0, RecallAny10: 1, RecallAll10: 0, NDCG10: (1 / math.Log2(6)) / 2}
	if s.Questions != 1 || s.RecallAny5 != want.RecallAny5 || s.RecallAny10 != want.RecallAny10 || s.RecallAll10 != want.RecallAll10 || !near(s.NDCG10, want.NDCG10) {
		t.Fatalf("Score = %+v, want %+v", s, want)
	}
}

func TestTallySummary(t *testing.T) {
	tl := newTally()
	tl.add(1, Scores{Questions: 1, RecallAny5: 1, RecallAny10: 1, RecallAll10: 1, NDCG10: 1})
	tl.add(1, Scores{Questions: 1, RecallAny10: 1, NDCG10: 0.5})
	tl.add(4, Scores{Questions: 1})
	s := tl.summary()
	if s.Questions != 3 || !near(s.RecallAny5, 1.0/3) || !near(s.RecallAny10, 2.0/3) || !near(s.RecallAll10, 1.0/3) || !near(s.NDCG10, 0.5) {
		t.Fatalf("overall = %+v", s.Scores)
	}
	c1, c4 := s.ByCategory["1"], s.ByCategory["4"]
	if c1.Name != "multi-hop" || c1.Questions != 2 || c1.RecallAny5 != 0.5 || c1.RecallAny10 != 1 || c1.NDCG10 != 0.75 {
		t.Fatalf("category 1 = %+v", c1)
	}
	if c4.Name != "single-hop" || c4.Questions != 1 || c4.RecallAny10 != 0 {
		t.Fatalf("category 4 = %+v", c4)
	}
	if len(s.ByCategory) != 2 {
		t.Fatalf("categories = %v", s.ByCategory)
	}
}

func TestPercentiles(t *testing.T) {
	if p50, p99 := percentiles(nil); p50 != 0 || p99 != 0 {
		t.Fatalf("empty = %v, %v", p50, p99)
	}
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	if p50, p99 := percentiles(lat); p50 != 51 || p99 != 100 {
		t.Fatalf("p50, p99 = %v, %v; want 51, 100", p50, p99)
	}
}
