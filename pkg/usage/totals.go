package usage

import (
	"cmp"
	"slices"
)

// Match reports whether q selects r.
func (q Query) Match(r Record) bool {
	if q.Tenant != "" && r.Tenant != q.Tenant {
		return false
	}
	if !q.Since.IsZero() && r.Time.Before(q.Since) {
		return false
	}
	if !q.Until.IsZero() && !r.Time.Before(q.Until) {
		return false
	}
	return true
}

// Tally sums records into Totals for readers that scan records themselves
// (the local log); the zero value is ready to use.
type Tally struct {
	totals map[tallyKey]*Total
	seen   map[string]struct{} // ids counted; a record written twice counts once
}

type tallyKey struct{ component, model string }

// Add counts r, unless a record with its ID was counted (a batch replayed
// from the spool after a crash); records without an ID count each time.
func (t *Tally) Add(r Record) {
	if t.totals == nil {
		t.totals = make(map[tallyKey]*Total)
		t.seen = make(map[string]struct{})
	}
	if r.ID != "" {
		if _, dup := t.seen[r.ID]; dup {
			return
		}
		t.seen[r.ID] = struct{}{}
	}
	k := tallyKey{r.Component, r.Model}
	tot, ok := t.totals[k]
	if !ok {
		tot = &Total{Component: r.Component, Model: r.Model}
		t.totals[k] = tot
	}
	tot.Calls++
	if r.Outcome != OutcomeOK {
		tot.Errors++
	}
	tot.InputTokens += r.InputTokens
	tot.OutputTokens += r.OutputTokens
	tot.Duration += r.Duration
}

// Totals returns the sums ordered by component, then model.
func (t *Tally) Totals() []Total {
	out := make([]Total, 0, len(t.totals))
	for _, tot := range t.totals {
		out = append(out, *tot)
	}
	slices.SortFunc(out, func(a, b Total) int {
		return cmp.Or(cmp.Compare(a.Component, b.Component), cmp.Compare(a.Model, b.Model))
	})
	return out
}
