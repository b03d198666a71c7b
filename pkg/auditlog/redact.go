package auditlog

import (
	"bytes"
	"context"
)

// RedactedReason replaces the reason of an entry a purge redacted.
const RedactedReason = "redacted: a memory it names was purged"

// Redactor removes the words of purged memories from past entries: an
// entry naming one of the ids (in MemoryIDs or in its snapshots) keeps
// its time, phase, op, ids, decider and model, and loses Before, After
// and Reason. It returns how many entries it redacted; asking again
// redacts none.
type Redactor interface {
	Redact(ctx context.Context, tenant string, ids []string) (int, error)
}

// Redact redacts through the log Metered wraps, when it can.
func (m *Metered) Redact(ctx context.Context, tenant string, ids []string) (int, error) {
	r, ok := m.Log.(Redactor)
	if !ok {
		return 0, ErrCannotRedact
	}
	return r.Redact(ctx, tenant, ids)
}

// Names reports whether the entry names any of ids (a set), in MemoryIDs
// or in its snapshots, and still has words to redact.
func (e *Entry) Names(ids map[string]bool) bool {
	if len(e.Before) == 0 && len(e.After) == 0 && (e.Reason == "" || e.Reason == RedactedReason) {
		return false
	}
	for _, id := range e.MemoryIDs {
		if ids[id] {
			return true
		}
	}
	for id := range ids {
		if bytes.Contains(e.Before, []byte(id)) || bytes.Contains(e.After, []byte(id)) {
			return true
		}
	}
	return false
}

// Redacted is the entry without its words.
func (e Entry) Redacted() Entry {
	e.Before, e.After, e.Reason = nil, nil, RedactedReason
	return e
}
