package promptctx

import (
	"context"
	"math"
	"slices"
	"time"
)

// recentSince is where resume's Recent section starts: the start of the
// RecentEpochs-th last consolidation epoch (003 §7: "modified in last N
// consolidation epochs"). A tenant with fewer epochs than that looks back
// to its first epoch or over RecentWindow, whichever reaches further; one
// with none, or whose history cannot be read, over RecentWindow. span is
// how far back that is, for the section's title.
func (a *Assembler) recentSince(ctx context.Context, tenant string, now time.Time) (since time.Time, span string) {
	window := now.Add(-a.cfg.RecentWindow)
	n := a.cfg.RecentEpochs
	if a.resume.epochs == nil || n <= 0 {
		return window, formatWindow(a.cfg.RecentWindow)
	}
	starts, err := a.resume.epochs(ctx, tenant)
	if err != nil {
		a.log.WarnContext(ctx, "read epoch history for resume", "tenant", tenant, "error", err)
		return window, formatWindow(a.cfg.RecentWindow)
	}
	if len(starts) == 0 {
		return window, formatWindow(a.cfg.RecentWindow)
	}
	starts = slices.SortedFunc(slices.Values(starts), time.Time.Compare)
	if len(starts) >= n {
		since = starts[len(starts)-n]
	} else {
		since = minTime(starts[0], window)
	}
	hours := max(1, int(math.Ceil(now.Sub(since).Hours())))
	return since, formatWindow(time.Duration(hours) * time.Hour)
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
