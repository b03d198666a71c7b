package soak

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
)

// verify waits until every acknowledged id is the source of a memory, then
// counts the lost (none) and the duplicated (more than one memory, or a
// repetition count above one), and the forgotten ids still the source of
// a memory (none).
func (r *runner) verify(ctx context.Context, rep *Report) error {
	// A purge that failed may have deleted or not: purge again (it is
	// idempotent), so the write is surely forgotten.
	for id := range r.unsure {
		if _, err := r.c.PurgeSubject(ctx, "", "s-"+id); err != nil {
			return fmt.Errorf("purge again a write whose purge failed: %w", err)
		}
		delete(r.unsure, id)
		r.gone[id] = true
	}
	rep.Forgotten = len(r.gone)
	deadline := time.Now().Add(r.cfg.Settle)
	for {
		seen, err := r.sources(ctx)
		if err == nil {
			rep.Stored, rep.Lost, rep.Duplicated, rep.LostIDs = 0, 0, 0, nil
			for id := range r.acked {
				switch n, said := seen[id], seen[id+transcriptSuffix]; {
				case n+said == 0:
					rep.Lost++
					if len(rep.LostIDs) < 10 {
						rep.LostIDs = append(rep.LostIDs, id)
					}
				case n > 1 || said > 1:
					rep.Duplicated++
					rep.Stored++
				default:
					rep.Stored++
				}
			}
			rep.ForgottenLeft = 0
			for id := range r.gone {
				if seen[id]+seen[id+transcriptSuffix] > 0 {
					rep.ForgottenLeft++
				}
			}
			if rep.Lost == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("list the soak's memories: %w", err)
			}
			return nil // judged as lost
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// transcriptSuffix keys a soak event id's transcript memories in sources.
const transcriptSuffix = "#said"

// sources counts, per soak event id, the memories naming it (a repetition
// count above one counts as a second store); a turn's transcript memory
// (the turn as said) is counted apart, under the id with
// transcriptSuffix, beside the facts extracted from it.
func (r *runner) sources(ctx context.Context) (map[string]int, error) {
	seen := map[string]int{}
	prefix := r.cfg.Tenant + ":"
	for m, err := range r.c.Memories(ctx, client.ListOptions{Tenant: r.cfg.Tenant, Limit: 1000, Archived: true, Superseded: true}) {
		if err != nil {
			return nil, err
		}
		for _, s := range m.SourceIDs {
			if id, ok := strings.CutPrefix(s, prefix); ok {
				if m.Transcript() {
					id += transcriptSuffix
				}
				seen[id] += max(m.RepetitionCount, 1)
			}
		}
	}
	return seen, nil
}

// judge records what failed: lost or duplicated events, errors, and
// resident memory or goroutines trending upward beyond the bounds.
func (rep *Report) judge() {
	c := rep.Config
	if rep.Lost > 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d acknowledged events not stored within %s (first: %s)", rep.Lost, c.Settle, strings.Join(rep.LostIDs, ", ")))
	}
	if rep.Duplicated > 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d events stored more than once", rep.Duplicated))
	}
	if rep.ForgottenLeft > 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d forgotten writes still have a memory", rep.ForgottenLeft))
	}
	if rep.Ops > 0 && float64(rep.Errors) > 0.01*float64(rep.Ops) {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d of %d operations failed after retries", rep.Errors, rep.Ops))
	}
	// The trend is judged over the steady phase (a dataset of constant
	// size), its first sample left out as the turn.
	var ok []Sample
	for _, s := range rep.Samples {
		if s.ScrapeFailed == "" && s.Steady {
			ok = append(ok, s)
		}
	}
	if len(ok) < 5 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("only %d metric samples in the steady phase; need 5 to judge a trend", len(ok)))
		return
	}
	ok = ok[1:]
	q := max(len(ok)/4, 1)
	mean := func(ss []Sample, f func(Sample) float64) float64 {
		var t float64
		for _, s := range ss {
			t += f(s)
		}
		return t / float64(len(ss))
	}
	rss := func(s Sample) float64 { return s.RSSBytes }
	gor := func(s Sample) float64 { return s.Goroutines }
	rep.RSSFirst, rep.RSSLast = mean(ok[:q], rss), mean(ok[len(ok)-q:], rss)
	rep.GoroutinesFirst, rep.GoroutinesLast = mean(ok[:q], gor), mean(ok[len(ok)-q:], gor)
	if rep.RSSLast > rep.RSSFirst*(1+c.RSSGrowth) {
		rep.Failures = append(rep.Failures, fmt.Sprintf("resident memory rose from %.0f MB to %.0f MB over the steady phase, %d → %d live writes (bound +%.0f%%)",
			rep.RSSFirst/(1<<20), rep.RSSLast/(1<<20), ok[0].Live, ok[len(ok)-1].Live, 100*c.RSSGrowth))
	}
	if rep.GoroutinesLast > rep.GoroutinesFirst*(1+c.GoroutineGrowth)+c.GoroutineSlack {
		rep.Failures = append(rep.Failures, fmt.Sprintf("goroutines rose from %.0f to %.0f (bound +%.0f%% + %.0f)",
			rep.GoroutinesFirst, rep.GoroutinesLast, 100*c.GoroutineGrowth, c.GoroutineSlack))
	}
}
