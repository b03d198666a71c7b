package recall_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
)

// A question naming a date finds, through the time channel, a memory that
// names that day only relative to when it was said ("yesterday") and is
// outranked in both other channels by memories sharing more words with the
// question.
func TestRecallTimeChannelFindsWhatADateNames(t *testing.T) {
	mems := []mem{
		at("told", "Yesterday I walked around Lisbon", day(2026, 2, 4)),
		at("d1", "I walk to work on most days in May", day(2026, 1, 10)),
		at("d2", "where do I walk on a May morning", day(2026, 1, 12)),
		at("d3", "we walk 3 miles in May", day(2026, 1, 14)),
		at("d4", "the dog needs a walk on May 30", day(2026, 1, 16)),
		at("d5", "where to walk in May 3 ideas", day(2026, 1, 18)),
		at("d6", "did you walk where we did in May", day(2026, 1, 20)),
	}
	f := newFixture(t, mems, recall.Config{PerDomain: 3, MaxResults: 3, MinRelevance: 0.05, Candidates: 3}, nil)
	resp := f.recall(t, recall.Request{Query: "Where did I walk on February 3?"})
	if got := ids(resp); !slices.Contains(got, "told") {
		t.Fatalf("recalled %v, want the memory of 4 February that says yesterday", got)
	}
	res := result(t, resp, "told")
	if res.TimeMatch < 0.5 || res.TimeWindow == "" {
		t.Fatalf("told: time match %v (%q), want the window's boost", res.TimeMatch, res.TimeWindow)
	}
	// Without a date the channel does not run, and the memory that shares
	// one word stays behind those sharing more; likewise with the channel
	// turned off.
	if got := ids(f.recall(t, recall.Request{Query: "Where did I walk in May?"})); slices.Contains(got, "told") {
		t.Fatalf("recalled %v without a date in the question", got)
	}
	off := newFixture(t, mems, recall.Config{PerDomain: 3, MaxResults: 3, MinRelevance: 0.05, Candidates: 3, NoTimeChannel: true}, nil)
	if got := ids(off.recall(t, recall.Request{Query: "Where did I walk on February 3?"})); slices.Contains(got, "told") {
		t.Fatalf("recalled %v with the time channel off", got)
	}
}

// A duration running up to when it was said ("for three days now") dates
// its start: the time channel finds it for a question about that day.
func TestRecallTimeChannelFindsWhereADurationBegan(t *testing.T) {
	mems := []mem{
		at("told", "I have been fasting for three days now, I eat nothing", day(2026, 2, 6)),
		at("d1", "what do people eat in May", day(2026, 1, 10)),
		at("d2", "what did you eat on a May morning", day(2026, 1, 12)),
		at("d3", "we eat out 3 times in May", day(2026, 1, 14)),
		at("d4", "what to eat on May 30", day(2026, 1, 16)),
		at("d5", "what did we eat in May 3 ideas", day(2026, 1, 18)),
	}
	f := newFixture(t, mems, recall.Config{PerDomain: 3, MaxResults: 3, MinRelevance: 0.05, Candidates: 3}, nil)
	if got := ids(f.recall(t, recall.Request{Query: "What did I eat on February 3?"})); !slices.Contains(got, "told") {
		t.Fatalf("recalled %v, want the memory of 6 February whose three days began on the 3rd", got)
	}
}

// failingDays is a store whose day searches fail (a store that does not
// know the filter, one that is overloaded).
type failingDays struct{ store.Store }

func (f failingDays) Search(ctx context.Context, q store.Query) ([]store.Hit, error) {
	if len(q.Filter.Days) > 0 {
		return nil, errors.New("day search failed")
	}
	return f.Store.Search(ctx, q)
}

// A failing time channel leaves recall to the other two.
func TestRecallTimeChannelFailureIsNotFatal(t *testing.T) {
	mems := []mem{at("told", "Yesterday I walked around Lisbon", day(2026, 2, 4)), at("d1", "I walk to work on most days", day(2026, 1, 10))}
	r, err := recall.New(recall.Config{PerDomain: 3, MaxResults: 3, MinRelevance: 0.05, Candidates: 3}, failingDays{storeOf(t, mems)},
		embedtest.Terms{}, domains.Builtin(), func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: "Where did I walk on February 3?", Dry: true})
	if err != nil || !slices.Contains(ids(resp), "d1") {
		t.Fatalf("recall %v, %v: want an answer from the other channels", ids(resp), err)
	}
}
