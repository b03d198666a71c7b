// Package auditlog records every operation a consolidation epoch applied or
// refused, with the memories before and after, so that any change to a
// tenant's memories can be explained later (`recollect audit`).
//
// Backends: jsonl (day files in the data dir, one process) and clickhouse
// (one table for a distributed deployment). Both pass auditlogtest.
package auditlog

import "context"

// Writer appends entries. A batch is stored whole or not at all; an invalid
// entry refuses the batch with an error matching memory.ErrInvalid.
type Writer interface {
	Write(ctx context.Context, entries []Entry) error
}

// Reader answers audit questions for one tenant, newest first.
type Reader interface {
	Read(ctx context.Context, q Query) ([]Entry, error)
}

// Log is a backend: what the consolidator writes to and the query module
// reads from.
type Log interface {
	Writer
	Reader
}
