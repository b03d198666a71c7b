package eval

import (
	"slices"
	"testing"
)

func TestBM25RanksByRareTermsAndLength(t *testing.T) {
	x := newBM25Index([]string{"a", "b", "c", "d"}, []string{
		"Maya: the deploy of ledger-api broke again today and again",
		"Sage: ledger-api deploy",
		"Maya: coffee first",
		"Sage: the staging host of ledger-api is staging-ledger-api.internal, and the deploy of ledger-api goes through it with a long explanation of everything else too",
	})
	got := x.rank("Where is the staging host?", 10)
	if !slices.Equal(got, []string{"d"}) {
		t.Fatalf("staging host: %v, want only d (no other turn shares a term)", got)
	}
	// "deploy" is in a, b and d: the shortest turn ranks first.
	got = x.rank("deploy", 10)
	if len(got) != 3 || got[0] != "b" || slices.Contains(got, "c") {
		t.Fatalf("deploy: %v, want b first and c absent", got)
	}
	if got := x.rank("deploy", 1); len(got) != 1 {
		t.Fatalf("k=1 gave %d", len(got))
	}
	if got := x.rank("the and of", 10); len(got) != 0 {
		t.Fatalf("stopwords matched %v", got)
	}
}

func TestBM25NormalisesByTheConversationsAverage(t *testing.T) {
	x := newBM25Index([]string{"short", "long"}, []string{"kafka", "kafka broker cluster partition replica"})
	if x.avg != 3 {
		t.Fatalf("average length %v, want 3 terms", x.avg)
	}
	if got := x.rank("kafka", 2); !slices.Equal(got, []string{"short", "long"}) {
		t.Fatalf("%v", got)
	}
}

// A LoCoMo sample is indexed as stored: the speaker's name before the
// text, the caption when captions are sent.
func TestSampleBM25(t *testing.T) {
	s := &Sample{Sessions: []Session{{Number: 1, Turns: []Turn{
		{DiaID: "D1:1", Speaker: "Caroline", Text: "I went to a support group yesterday"},
		{DiaID: "D1:2", Speaker: "Melanie", Text: "That sounds great", Caption: "a photo of a sunrise over a lake"},
	}}}}
	if got := sampleBM25(s, false).rankedIDs("What did Caroline do?", 10); len(got) != 1 || got[0][0] != "D1:1" {
		t.Fatalf("by speaker: %v", got)
	}
	if got := sampleBM25(s, false).rankedIDs("sunrise", 10); len(got) != 0 {
		t.Fatalf("caption indexed without captions: %v", got)
	}
	if got := sampleBM25(s, true).rankedIDs("sunrise", 10); len(got) != 1 || got[0][0] != "D1:2" {
		t.Fatalf("caption: %v", got)
	}
}
