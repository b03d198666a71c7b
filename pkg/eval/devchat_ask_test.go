package eval

import (
	"slices"
	"testing"
)

func TestRanks(t *testing.T) {
	ranked := [][]string{{"a"}, {"x", "b"}, {"c"}}
	if got := ranks(ranked, []string{"b", "z", "a"}); !slices.Equal(got, []int{2, 0, 1}) {
		t.Fatalf("ranks = %v", got)
	}
	if ranks(ranked, nil) != nil {
		t.Fatal("ranks of nothing")
	}
}

func TestUpdateTally(t *testing.T) {
	var u updateTally
	cases := []struct {
		current, stale []int
		above          bool
	}{
		{[]int{1}, []int{3}, true},     // both, newer first
		{[]int{4, 2}, []int{3}, true},  // the best current rank counts
		{[]int{5}, []int{2, 0}, false}, // both, older first
		{[]int{3}, []int{0}, true},     // newer only
		{[]int{0}, []int{1}, false},    // older only
		{[]int{0}, []int{0}, false},    // neither
		{[]int{2}, []int{2}, false},    // one merged memory holds both: not above
	}
	for i, c := range cases {
		if got := u.add(c.current, c.stale); got != c.above {
			t.Errorf("case %d: above = %v, want %v", i, got, c.above)
		}
	}
	s := u.scores()
	if s.Questions != 7 || s.Both != 4 || s.NewerOnly != 1 || s.OlderOnly != 1 || s.Neither != 1 {
		t.Fatalf("counts = %+v", s)
	}
	if !near(s.NewerAboveOlder, 3.0/7) || !near(s.NewerAboveOlderBoth, 2.0/4) {
		t.Fatalf("shares = %v, %v", s.NewerAboveOlder, s.NewerAboveOlderBoth)
	}
}
