package storetest

import (
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// testTimeViews holds a store to store.Filter's ValidAt (valid time) and
// KnownAt (record time), on a corpus with a supersession, a record
// superseded before valid_until existed, a fact learnt after the time it
// names and an archived one.
func testTimeViews(t *testing.T, e *env) {
	ten := tenant(t, "time")
	day := func(d int) time.Time { return baseTime.Add(time.Duration(d) * 24 * time.Hour) }
	mems := make([]memory.Memory, 5)
	for i := range mems {
		mems[i] = e.basic(t, ten, i, e.vec(1, float32(i)/10, float32(i%2), 0))
	}
	// 0: said on day 1, replaced by 1's statement of day 10, which an epoch
	// of day 20 read.
	mems[0].CreatedAt, mems[0].ValidFrom = day(1), day(1)
	mems[0].Supersede(mems[1].ID, day(10), day(20))
	mems[1].CreatedAt, mems[1].ValidFrom = day(10), day(10)
	// 2: superseded on day 15 by a version without valid_until and without
	// valid_from: valid from its creation until its invalid_at.
	inv := day(15)
	mems[2].CreatedAt, mems[2].InvalidAt, mems[2].SupersededBy = day(2), &inv, mems[1].ID
	// 3: learnt on day 12 about day 3.
	mems[3].CreatedAt, mems[3].ValidFrom = day(12), day(3)
	// 4: archived, valid from day 0.
	mems[4].CreatedAt, mems[4].ValidFrom, mems[4].Archived = day(0), day(0), true
	upsert(t, e.s, mems...)
	cases := []struct {
		name string
		f    store.Filter
		want []int
	}{
		{"as of before the update", store.Filter{ValidAt: day(5)}, []int{0, 2, 3}},
		{"as of the update", store.Filter{ValidAt: day(10)}, []int{1, 2, 3}},
		{"as of after every change", store.Filter{ValidAt: day(16)}, []int{1, 3}},
		{"as of before anything", store.Filter{ValidAt: day(0).Add(time.Hour)}, nil},
		{"as of before anything archived", store.Filter{ValidAt: day(0).Add(time.Hour), IncludeArchived: true}, []int{4}},
		{"as of ignores include superseded", store.Filter{ValidAt: day(16), IncludeSuperseded: true}, []int{1, 3}},
		{"known before the late fact", store.Filter{KnownAt: day(11)}, []int{0, 1, 2}},
		{"known after the legacy supersession", store.Filter{KnownAt: day(16)}, []int{0, 1, 3}},
		{"known at the epoch is after it", store.Filter{KnownAt: day(20)}, []int{1, 3}},
		{"as of and known", store.Filter{ValidAt: day(5), KnownAt: day(11)}, []int{0, 2}},
		{"valid time closed after known at is open", store.Filter{ValidAt: day(12), KnownAt: day(16)}, []int{0, 1, 3}},
		{"valid time closed before known at", store.Filter{ValidAt: day(12), KnownAt: day(21)}, []int{1, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]string, len(tc.want))
			for i, n := range tc.want {
				want[i] = mems[n].ID
			}
			if n := count(t, e.s, ten, tc.f); n != len(want) {
				t.Errorf("count = %d, want %d", n, len(want))
			}
			if ids := scrollIDs(t, e.s, ten, tc.f); !sameIDs(ids, want) {
				t.Errorf("scroll = %v, want %v", ids, want)
			}
			hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10, Filter: tc.f})
			if ids := hitIDs(hits); !sameIDs(ids, want) {
				t.Errorf("search = %v, want %v", ids, want)
			}
			hits = searchText(t, e.s, store.TextQuery{Tenant: ten, Text: "memory number", K: 10, Filter: tc.f})
			if ids := hitIDs(hits); !sameIDs(ids, want) {
				t.Errorf("search text = %v, want %v", ids, want)
			}
		})
	}
}
