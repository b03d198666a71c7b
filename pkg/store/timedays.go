package store

import (
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/temporal"
)

// The time index. A memory is indexed under its days: the UTC day of its
// event time (CreatedAt) and every day of each time its content names,
// resolved against that event time ("yesterday", "last Friday", "on May 3",
// "in March"), when that time spans at most MaxDaySpan days. Filter.Days
// matches a memory indexed under any of the listed days, so recall can
// fetch by time what shares no word with the question ("Yesterday I was in
// Lisbon" for "where was she on May 3?").
const (
	// MaxDaySpan bounds the times indexed and the windows searched by day:
	// a wider one ("in 2023", "last year") says too little to fetch by.
	MaxDaySpan = 31
	// maxDayParseChars bounds the content read for the times it names.
	maxDayParseChars = 1000
)

// Day is t's day number: days since 1970-01-01 in UTC.
func Day(t time.Time) int32 {
	s := t.Unix()
	d := s / 86400
	if s < 0 && s%86400 != 0 {
		d--
	}
	return int32(d)
}

// MemoryDays are the days m is indexed under, ascending, without repeats;
// nil for a memory without an event time.
func MemoryDays(m *memory.Memory) []int32 {
	if m.CreatedAt.IsZero() {
		return nil
	}
	days := []int32{Day(m.CreatedAt)}
	content := m.Content
	if len(content) > maxDayParseChars {
		content = content[:maxDayParseChars]
	}
	if temporal.Mentions(content) {
		for _, w := range temporal.Windows(content, m.CreatedAt) {
			days = append(days, WindowDays(w.From, w.To)...)
		}
	}
	slices.Sort(days)
	return slices.Compact(days)
}

// WindowDays are the days [from, to) touches, ascending; nil when it is
// open or wider than MaxDaySpan days.
func WindowDays(from, to time.Time) []int32 {
	if from.IsZero() || to.IsZero() || !from.Before(to) {
		return nil
	}
	first, last := Day(from), Day(to.Add(-time.Nanosecond))
	if last-first >= MaxDaySpan {
		return nil
	}
	out := make([]int32, 0, last-first+1)
	for d := first; d <= last; d++ {
		out = append(out, d)
	}
	return out
}
