package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testTimeDays holds a store to store.Filter.Days: a memory matches the
// day of its event time and the days of the times its content names,
// resolved against that event time; a change of content or event time
// moves it, a delete removes it, and the other filters still apply.
func testTimeDays(t *testing.T, e *env) {
	ten := tenant(t, "days")
	day := func(d int) time.Time { return baseTime.AddDate(0, 0, d) } // baseTime is Friday 14 March 2025
	mems := make([]memory.Memory, 5)
	for i := range mems {
		mems[i] = e.basic(t, ten, i, e.vec(1, float32(i)/10, 0, 0))
	}
	// 0: said on Saturday the 15th about the day before.
	mems[0].CreatedAt, mems[0].Content = day(1), "Yesterday I moved the CI to Buildkite"
	// 1: said on the 20th, no time named.
	mems[1].CreatedAt, mems[1].Content = day(6), "the deploy went fine"
	// 2: said on the 20th about last Monday (the 17th), in another namespace.
	mems[2].CreatedAt, mems[2].Content, mems[2].Namespace = day(6), "On Monday I renewed the certificate", "work"
	// 3: said on the 14th about "in 2024": too wide to index by day.
	mems[3].CreatedAt, mems[3].Content = day(0), "in 2024 we ran everything on one server"
	// 4: said on the 14th, archived.
	mems[4].CreatedAt, mems[4].Archived = day(0), true
	upsert(t, e.s, mems...)
	d := func(n int) int32 { return store.Day(day(n)) }
	cases := []struct {
		name string
		f    store.Filter
		want []int
	}{
		{"a day named relative to the event", store.Filter{Days: []int32{d(0)}}, []int{0, 3}},
		{"the event's own day", store.Filter{Days: []int32{d(1)}}, []int{0}},
		{"two days", store.Filter{Days: []int32{d(3), d(6)}}, []int{1, 2}},
		{"a weekday named", store.Filter{Days: []int32{d(3)}}, []int{2}},
		{"with another filter", store.Filter{Days: []int32{d(3), d(6)}, Namespaces: []string{memory.DefaultNamespace}}, []int{1}},
		{"archived asked for", store.Filter{Days: []int32{d(0)}, IncludeArchived: true}, []int{0, 3, 4}},
		{"a day nothing names", store.Filter{Days: []int32{d(-30)}}, nil},
	}
	check := func(stage string) {
		t.Helper()
		for _, c := range cases {
			var want []string
			for _, i := range c.want {
				want = append(want, mems[i].ID)
			}
			hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10, Filter: c.f})
			if got := hitIDs(hits); !sameIDs(got, want) {
				t.Errorf("%s: search %s: got %v, want %v", stage, c.name, got, want)
			}
			if got := scrollIDs(t, e.s, ten, c.f); !sameIDs(got, want) {
				t.Errorf("%s: scroll %s: got %v, want %v", stage, c.name, got, want)
			}
			if got := count(t, e.s, ten, c.f); got != len(want) {
				t.Errorf("%s: count %s: %d, want %d", stage, c.name, got, len(want))
			}
		}
	}
	check("stored")
	// Ranked by the vector among the day's memories.
	hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(0, 1, 0, 0), K: 1, Filter: store.Filter{Days: []int32{d(0)}}})
	if got := hitIDs(hits); !slices.Equal(got, []string{mems[3].ID}) {
		t.Errorf("k=1 on the 14th: %v, want memory 3 (the closer vector)", got)
	}
	if e.h.Reopen != nil {
		e.reopen(t)
		check("reopened")
	}
	// A new content moves memory 0 off the 14th; a new event time moves 1.
	mems[0].Content = "I moved the CI to Buildkite"
	mems[1].CreatedAt = day(3)
	upsert(t, e.s, mems[0], mems[1])
	cases = cases[:2]
	cases[0].want, cases[1].want = []int{3}, []int{0}
	cases = append(cases, struct {
		name string
		f    store.Filter
		want []int
	}{"the new event time", store.Filter{Days: []int32{d(3)}}, []int{1, 2}})
	check("rewritten")
	if err := e.s.Delete(t.Context(), ten, mems[2].ID); err != nil {
		t.Fatal(err)
	}
	cases[2].want = []int{1}
	check("deleted")
}
