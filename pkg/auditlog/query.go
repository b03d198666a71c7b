package auditlog

import (
	"slices"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Bounds of Query.Limit.
const (
	DefaultLimit = 100
	MaxLimit     = 10000
)

// Query selects a tenant's entries; empty fields mean any. The time range
// is half-open: Since <= Time < Until. Entries come newest first: by Time,
// then Seq, then the reverse of the order they were written in.
type Query struct {
	Tenant   string // required
	Since    time.Time
	Until    time.Time
	Phase    string
	Op       string
	MemoryID string // entries whose MemoryIDs hold it
	Epoch    string
	Limit    int // 0 = DefaultLimit, at most MaxLimit
}

// Normalized validates q and fills in the default limit. Errors match
// memory.ErrInvalid and name the field.
func (q Query) Normalized() (Query, error) {
	if !memory.ValidTenant(q.Tenant) {
		return q, fieldErr("tenant", "is required: 1-%d characters of [A-Za-z0-9_-]", memory.MaxNameChars)
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		return q, fieldErr("limit", "must be between 1 and %d (got %d)", MaxLimit, q.Limit)
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	return q, nil
}

// Match reports whether e is selected by q (the limit aside).
func (q Query) Match(e *Entry) bool {
	return e.Tenant == q.Tenant &&
		(q.Since.IsZero() || !e.Time.Before(q.Since)) &&
		(q.Until.IsZero() || e.Time.Before(q.Until)) &&
		(q.Phase == "" || e.Phase == q.Phase) &&
		(q.Op == "" || e.Op == q.Op) &&
		(q.Epoch == "" || e.Epoch == q.Epoch) &&
		(q.MemoryID == "" || slices.Contains(e.MemoryIDs, q.MemoryID))
}
