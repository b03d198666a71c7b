package memory

import "time"

// A memory lives on two clocks, never mixed (docs/ARCHITECTURE.md, "Time:
// valid time and record time"):
//
//   - valid time, ValidFrom … ValidUntil: when the statement was true in
//     the world. ValidFrom is the statement's event time (or a date it
//     names); ValidUntil is set when a newer statement replaces it, to the
//     newer one's ValidFrom. Open (nil) while it is current.
//   - record time, CreatedAt … InvalidAt: when Recollect learnt it, and
//     when Recollect learnt otherwise (the epoch that superseded it; what
//     Graphiti calls expired_at). The wire name invalid_at is kept: every
//     client, export, audit entry and stored record already carries it
//     with this meaning.
//
// Records written before ValidUntil existed migrate on read: a memory
// without ValidFrom is valid from its CreatedAt, and a superseded one
// without ValidUntil is valid until its InvalidAt (consolidation later
// writes its successor's ValidFrom there, see consolidate/validity.go).

// ValidSince is when m became true: ValidFrom, or CreatedAt for a memory
// that has none.
func (m *Memory) ValidSince() time.Time {
	if !m.ValidFrom.IsZero() {
		return m.ValidFrom
	}
	return m.CreatedAt
}

// ValidTo is when m stopped being true, and whether it has: ValidUntil,
// or InvalidAt for a superseded memory written before ValidUntil.
func (m *Memory) ValidTo() (time.Time, bool) {
	switch {
	case m.ValidUntil != nil:
		return *m.ValidUntil, true
	case m.InvalidAt != nil:
		return *m.InvalidAt, true
	}
	return time.Time{}, false
}

// ValidAt reports whether m was true at t: ValidSince ≤ t < ValidTo.
func (m *Memory) ValidAt(t time.Time) bool {
	if m.ValidSince().After(t) {
		return false
	}
	end, closed := m.ValidTo()
	return !closed || end.After(t)
}

// KnownAt reports whether Recollect held m as current at t: created by
// then and not yet invalidated.
func (m *Memory) KnownAt(t time.Time) bool {
	return !m.CreatedAt.After(t) && (m.InvalidAt == nil || m.InvalidAt.After(t))
}

// Supersede closes m's valid time at its successor's start (from; now
// when unknown, never before m's own start) and stamps record time now.
func (m *Memory) Supersede(successor string, from, now time.Time) {
	end := from
	if end.IsZero() {
		end = now
	}
	if since := m.ValidSince(); end.Before(since) {
		end = since
	}
	m.ValidUntil, m.InvalidAt, m.SupersededBy = &end, &now, successor
}

// Reopen makes m current again: both clocks open, no successor.
func (m *Memory) Reopen() { m.ValidUntil, m.InvalidAt, m.SupersededBy = nil, nil, "" }

// TimeView is a question's reading of the two clocks: AsOf asks what was
// true then (valid time), KnownAt what Recollect knew then (record time).
// A zero time is not asked; the zero view is "current now".
type TimeView struct {
	AsOf    time.Time
	KnownAt time.Time
}

// IsZero reports the view of current memories.
func (v TimeView) IsZero() bool { return v.AsOf.IsZero() && v.KnownAt.IsZero() }

// Holds reports whether m answers in v. The zero view holds memories not
// superseded. With KnownAt, m must be known then; with AsOf, valid then —
// and a valid time closed only after KnownAt counts as open, as Recollect
// did not know yet that it had ended.
func (v TimeView) Holds(m *Memory) bool {
	if v.IsZero() {
		return !m.Superseded()
	}
	if !v.KnownAt.IsZero() && !m.KnownAt(v.KnownAt) {
		return false
	}
	if v.AsOf.IsZero() {
		return true
	}
	if m.ValidSince().After(v.AsOf) {
		return false
	}
	end, closed := m.ValidTo()
	if !closed || end.After(v.AsOf) {
		return true
	}
	return !v.KnownAt.IsZero() && m.InvalidAt != nil && m.InvalidAt.After(v.KnownAt)
}
