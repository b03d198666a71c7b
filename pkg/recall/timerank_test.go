package recall_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/strictjson"
)

// at makes a memory written at t (testNow less its age).
func at(id, content string, t time.Time) mem {
	return mem{id: id, content: content, age: testNow.Sub(t)}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }

func result(t *testing.T, resp recall.Response, id string) recall.Result {
	t.Helper()
	for _, res := range resp.Memories {
		if res.Memory.ID == id {
			return res
		}
	}
	t.Fatalf("%s not recalled: %v", id, ids(resp))
	return recall.Result{}
}

func TestRecallAsOfAndTimeFilterValidation(t *testing.T) {
	f := newFixture(t, []mem{{id: "a", content: "the user likes tea"}}, recall.Config{}, nil)
	for _, tc := range []struct {
		name  string
		req   recall.Request
		field string
	}{
		{"before 1970", recall.Request{Query: "tea", AsOf: recall.At(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC))}, "as_of"},
		{"far future", recall.Request{Query: "tea", AsOf: recall.At(testNow.Add(recall.MaxAsOfFuture + time.Hour))}, "as_of"},
		{"time filter", recall.Request{Query: "tea", Filters: recall.Filters{Time: "hard"}}, "filters.time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Tenant = "acme"
			_, err := f.r.Recall(context.Background(), tc.req)
			var fe *memory.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, memory.ErrInvalid) {
				t.Fatalf("error %v, want a field error naming %s", err, tc.field)
			}
		})
	}
	var req recall.Request
	err := strictjson.Unmarshal([]byte(`{"query": "tea", "as_of": "yesterday"}`), &req)
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field != "as_of" {
		t.Fatalf("malformed as_of: %v, want a field error naming as_of", err)
	}
	if err := strictjson.Unmarshal([]byte(`{"query": "tea", "as_of": "2023-05-07T18:30:00+02:00"}`), &req); err != nil || !req.AsOf.Equal(time.Date(2023, 5, 7, 16, 30, 0, 0, time.UTC)) {
		t.Fatalf("as_of %v: %v", req.AsOf, err)
	}
	resp := f.recall(t, recall.Request{Query: "tea"})
	if resp.Time == nil || !resp.Time.AsOf.Equal(testNow) {
		t.Fatalf("as_of defaults to now: %+v", resp.Time)
	}
	asOf := day(2024, 5, 1)
	resp = f.recall(t, recall.Request{Query: "tea", AsOf: recall.At(asOf.Add(recall.MaxAsOfFuture / 2))})
	if !resp.Time.AsOf.Equal(asOf.Add(recall.MaxAsOfFuture / 2)) {
		t.Fatalf("as_of %v", resp.Time.AsOf)
	}
}

// A question naming a month ranks the memory written in it first; the
// filter keeps only that one.
func TestRecallTimeWindow(t *testing.T) {
	mems := []mem{
		at("june", "we went on a hiking trip with friends", day(2025, 6, 14)),
		at("january", "we went on a hiking trip with my friends", day(2026, 1, 10)),
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	for _, tc := range []struct{ query, first, window string }{
		{"hiking trip with friends in June 2025", "june", "June 2025"},
		{"hiking trip with friends in January 2026", "january", "January 2026"},
		{"hiking trip with friends last summer", "june", "last summer"},
	} {
		resp := f.recall(t, recall.Request{Query: tc.query})
		if got := ids(resp); len(got) != 2 || got[0] != tc.first {
			t.Fatalf("%q recalled %v, want %s first", tc.query, got, tc.first)
		}
		top := resp.Memories[0]
		if top.TimeMatch < 0.5 || top.TimeWindow != tc.window || top.TimeFactor <= 1 {
			t.Fatalf("%q: top result's time terms %v %q %v", tc.query, top.TimeMatch, top.TimeWindow, top.TimeFactor)
		}
		if len(resp.Time.Windows) != 1 || resp.Time.Filtered {
			t.Fatalf("%q: time info %+v", tc.query, resp.Time)
		}
	}
	resp := f.recall(t, recall.Request{Query: "hiking trip with friends in June 2025", Filters: recall.Filters{Time: recall.TimeFilterQuery}})
	if got := ids(resp); len(got) != 1 || got[0] != "june" || !resp.Time.Filtered {
		t.Fatalf("filtered recall %v (filtered %v), want only june", got, resp.Time.Filtered)
	}
	// Without a window in the query the filter filters nothing.
	resp = f.recall(t, recall.Request{Query: "hiking trip with friends", Filters: recall.Filters{Time: recall.TimeFilterQuery}})
	if len(resp.Memories) != 2 || resp.Time.Filtered {
		t.Fatalf("filter without a window recalled %v", ids(resp))
	}
}

// A time the content names relative to when it was written counts: "last
// week" in a memory of 20 July is 7-13 July.
func TestRecallWindowFromContent(t *testing.T) {
	mems := []mem{
		at("told", "last week we went on a hiking trip", day(2025, 7, 20)),
		at("plain", "we went on a hiking trip", day(2025, 7, 20)),
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	resp := f.recall(t, recall.Request{Query: "hiking trip in the second week of July 2025"})
	told, plain := result(t, resp, "told"), result(t, resp, "plain")
	if told.TimeMatch <= plain.TimeMatch || plain.TimeMatch == 0 || ids(resp)[0] != "told" {
		t.Fatalf("time match told %v plain %v, order %v", told.TimeMatch, plain.TimeMatch, ids(resp))
	}
}

// A question asking when prefers the memory that names a time.
func TestRecallWhenPrefersTimes(t *testing.T) {
	mems := []mem{
		at("dated", "I went to the museum yesterday", day(2025, 7, 5)),
		at("undated", "I went to the museum", day(2025, 7, 5)),
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	resp := f.recall(t, recall.Request{Query: "When did I go to the museum?"})
	dated, undated := result(t, resp, "dated"), result(t, resp, "undated")
	if !dated.MentionsTime || undated.MentionsTime || dated.TimeFactor <= undated.TimeFactor || !resp.Time.AsksWhen {
		t.Fatalf("dated %+v undated %+v", dated, undated)
	}
}

// Recency runs from as_of on the candidates' span: a conversation years
// old still has a gradient, for questions about the current state; for a
// question about an event every memory's recency is 1.
func TestRecallRecencyFromAsOf(t *testing.T) {
	mems := []mem{
		at("old", "the user plays the violin", day(2019, 1, 10)),
		at("new", "the user plays the violin", day(2019, 6, 10)),
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	resp := f.recall(t, recall.Request{Query: "what instrument does the user play", AsOf: recall.At(day(2019, 6, 11))})
	oldR, newR := result(t, resp, "old"), result(t, resp, "new")
	if !(oldR.Recency > 0.5 && oldR.Recency < newR.Recency && newR.Recency <= 1) || !resp.Time.RecencyApplied {
		t.Fatalf("recency old %v new %v (applied %v)", oldR.Recency, newR.Recency, resp.Time.RecencyApplied)
	}
	if resp.Time.RecencyScaleHours < 4*150*24 {
		t.Fatalf("recency scale %v h, want four spans of the candidates", resp.Time.RecencyScaleHours)
	}
	// Against the wall clock (as_of now, years later) every recency is low,
	// but the gradient is still there.
	resp = f.recall(t, recall.Request{Query: "what instrument does the user play"})
	if oldR, newR := result(t, resp, "old"), result(t, resp, "new"); !(oldR.Recency > 0 && oldR.Recency < newR.Recency) {
		t.Fatalf("recency at now: old %v new %v", oldR.Recency, newR.Recency)
	}
	resp = f.recall(t, recall.Request{Query: "what instrument did the user play", AsOf: recall.At(day(2019, 6, 11))})
	if oldR, newR := result(t, resp, "old"), result(t, resp, "new"); oldR.Recency != 1 || newR.Recency != 1 || resp.Time.RecencyApplied {
		t.Fatalf("past-tense question: recency old %v new %v", oldR.Recency, newR.Recency)
	}
}

// Two versions of one fact (same key): the newer ranks first, even when the
// older matches the question better, unless the question asks about the
// past.
func TestRecallNewerWins(t *testing.T) {
	mems := []mem{
		{id: "old", key: "project/coverage", content: "the test coverage of the project is 65 percent", age: 90 * 24 * time.Hour},
		{id: "new", key: "project/coverage", content: "coverage went up to 78 percent", age: 24 * time.Hour},
	}
	f := newFixture(t, mems, recall.Config{}, nil)
	resp := f.recall(t, recall.Request{Query: "what is the test coverage of the project"})
	if got := ids(resp); len(got) != 2 || got[0] != "new" {
		t.Fatalf("recalled %v, want the newer first", got)
	}
	if o := result(t, resp, "old"); o.OutrankedBy != "new" || !resp.Time.NewerWins {
		t.Fatalf("older not marked outranked: %q (newer_wins %v)", o.OutrankedBy, resp.Time.NewerWins)
	}
	for _, q := range []string{"what was the test coverage of the project originally", "what was the test coverage of the project at first"} {
		resp = f.recall(t, recall.Request{Query: q})
		if got := ids(resp); len(got) != 2 || got[0] != "old" || resp.Time.NewerWins || !resp.Time.Past {
			t.Fatalf("%q recalled %v, want the older (better match) first", q, got)
		}
	}
	for _, res := range resp.Memories {
		if strings.Contains(res.OutrankedBy, "new") {
			t.Fatalf("past question still marks outranked: %+v", res)
		}
	}
}
