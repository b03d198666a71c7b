package recall_test

import (
	"fmt"
	"testing"

	"github.com/recollect-dev/recollect/pkg/recall"
)

// TestRecallAnswersK: with the server's defaults (3 per domain, 9 in all) a
// recall asked for k answers k when k memories match, all in one domain
// (issue 20: k 10 answered 3); unasked it answers the 9 of 000.
func TestRecallAnswersK(t *testing.T) {
	var mems []mem
	for i := range 12 {
		mems = append(mems, mem{id: fmt.Sprintf("m%02d", i), content: fmt.Sprintf("the billing service note number %d", i)})
	}
	f := newFixture(t, mems, recall.Config{PerDomain: 3, MaxResults: 9, MinRelevance: 0.05, Candidates: 50}, nil)
	for _, tc := range []struct{ k, want int }{{10, 10}, {0, 9}, {2, 2}, {100, 12}} {
		resp := f.recall(t, recall.Request{Query: "billing service note", K: tc.k})
		if got := len(resp.Memories); got != tc.want {
			t.Errorf("k %d: recalled %d %v, want %d", tc.k, got, ids(resp), tc.want)
		}
	}
	resp := f.recall(t, recall.Request{Query: "billing service note", K: 10, PerDomain: 1})
	if got := len(resp.Memories); got != 10 {
		t.Errorf("k 10 per_domain 1: recalled %d, want 10 (the budget never shortens the answer)", got)
	}
}
