package local

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// A window with more rows than dayApproxMin is ranked through the int8
// copy: its top 10 agree with the exact ranking of the same rows, and
// every hit lies in the window.
func TestSearchDaysApproximate(t *testing.T) {
	s, err := Open(t.TempDir(), WithLogger(discardLogger()), WithConfig(Config{CompactMinBytes: 64 << 20, CompactRatio: 2, ApproxMinRows: 100}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 3 * dayApproxMin
	mems := make([]memory.Memory, 0, n)
	for i := range n {
		m := testMemory("days", i, seededVector(uint64(i), 64))
		m.CreatedAt = start.Add(time.Duration(i) * 2 * time.Minute) // about 4 days
		m.Content = "turn " + strconv.Itoa(i)
		mems = append(mems, m)
	}
	if err := s.Upsert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	days := store.WindowDays(start, start.AddDate(0, 0, 3))
	q := store.Query{Tenant: "days", Vector: seededVector(1<<40, 64), K: 10, Filter: store.Filter{Days: days}}
	p := s.partition("days")
	p.mu.RLock()
	rows := len(p.dayRows(days))
	p.mu.RUnlock()
	if rows < dayApproxMin || p.quant == nil {
		t.Fatalf("%d day rows (want at least %d) and an int8 copy (%v)", rows, dayApproxMin, p.quant != nil)
	}
	got, err := s.Search(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.SearchExact(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, h := range got {
		if d := store.Day(h.Memory.CreatedAt); !slices.Contains(days, d) {
			t.Errorf("hit %s on day %d is outside the window", h.Memory.ID, d)
		}
		if slices.ContainsFunc(want, func(w store.Hit) bool { return w.Memory.ID == h.Memory.ID }) {
			same++
		}
	}
	if len(got) != 10 || same < 9 {
		t.Fatalf("%d hits, %d of the exact top 10", len(got), same)
	}
}
