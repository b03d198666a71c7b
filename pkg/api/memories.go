package api

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// ListResponse is a page of memories.
type ListResponse struct {
	Memories []memory.Memory `json:"memories"`
	Next     string          `json:"next,omitempty"`
}

// History is a memory's provenance, from its record: there is no event log
// per memory, so Source is always "record". Chain is every version of the
// fact, oldest first, this memory included: what it was derived from
// (merged, reconciled, distilled), what superseded it up to the current
// memory, and what it superseded. Each version shows both timelines:
// valid time (valid_from … valid_until: when it was true in the world) and
// record time (created_at … invalid_at: when Recollect learnt it and when
// it learnt otherwise).
type History struct {
	ID              string           `json:"id"`
	Tenant          string           `json:"tenant"`
	Namespace       string           `json:"namespace"`
	Source          string           `json:"source"`
	Origin          memory.Source    `json:"origin"`
	SourceIDs       []string         `json:"source_ids"`
	CreatedAt       time.Time        `json:"created_at"`
	ModifiedAt      time.Time        `json:"modified_at"`
	LastAccessed    time.Time        `json:"last_accessed,omitzero"`
	ValidFrom       time.Time        `json:"valid_from,omitzero"`
	ValidUntil      *time.Time       `json:"valid_until,omitempty"`
	InvalidAt       *time.Time       `json:"invalid_at,omitempty"`
	Layer           memory.Layer     `json:"layer"`
	Archived        bool             `json:"archived,omitempty"`
	RepetitionCount int              `json:"repetition_count"`
	AccessCount     int              `json:"access_count"`
	SuccessCount    int              `json:"success_count"`
	SupersededBy    string           `json:"superseded_by,omitempty"`
	DerivedFrom     []string         `json:"derived_from"`
	Chain           []HistoryVersion `json:"chain"`
	// ChainTruncated says the fact has more than 100 versions (query.MaxChain); the
	// chain holds the first of them the walk reached.
	ChainTruncated bool `json:"chain_truncated,omitempty"`
}

// HistoryVersion is one memory of a history's chain.
type HistoryVersion struct {
	ID           string       `json:"id"`
	Content      string       `json:"content"`
	Key          string       `json:"key,omitempty"`
	Layer        memory.Layer `json:"layer"`
	ValidFrom    time.Time    `json:"valid_from,omitzero"`
	ValidUntil   *time.Time   `json:"valid_until,omitempty"`
	InvalidAt    *time.Time   `json:"invalid_at,omitempty"`
	SupersededBy string       `json:"superseded_by,omitempty"`
	DerivedFrom  []string     `json:"derived_from,omitempty"`
	Archived     bool         `json:"archived,omitempty"`
	CreatedAt    time.Time    `json:"created_at"`
}

// DeleteResponse is the answer of DELETE /v1/memories. A purge of a
// subject adds its erasure receipt (read it again, once complete, from
// GET /v1/erasures/{id}).
//
// It mirrors query.DeleteResponse field for field.
type DeleteResponse struct {
	Deleted int             `json:"deleted"`
	Receipt *ErasureReceipt `json:"receipt,omitempty"`
}

// ErasureReceipt answers a purge: per place, what was erased. It names the tenant
// and ids only, never the subject or its words, so it can be kept.
//
// It mirrors erase.Receipt field for field.
type ErasureReceipt struct {
	ID       string         `json:"id"`
	Tenant   string         `json:"tenant"`
	State    string         `json:"state"`
	Started  time.Time      `json:"started"`
	Finished *time.Time     `json:"finished,omitempty"`
	Places   []ErasurePlace `json:"places"`
}

// ErasurePlace is one place's part: Erased counts what it removed or
// rewrote there (memories, entries, messages, objects), Note says what was
// counted or why nothing could be.
type ErasurePlace struct {
	Place  string `json:"place"`
	State  string `json:"state"`
	Erased int    `json:"erased"`
	Note   string `json:"note,omitempty"`
}

// ImportResponse is the answer of POST /v1/import: how many records were
// written and how many were already stored unchanged (skipped). On 400,
// nothing was written; Errors lists the bad lines (the first
// MaxImportErrors) and Error, Code and Field are those of web.Error.
//
// It mirrors query.ImportResponse field for field.
type ImportResponse struct {
	Imported int `json:"imported"`
	Skipped  int `json:"skipped"`
	// Redacted counts records stored with a secret redacted, Quarantined
	// those this import quarantined (the explicit-memory filters).
	Redacted    int         `json:"redacted,omitempty"`
	Quarantined int         `json:"quarantined,omitempty"`
	Errors      []LineError `json:"errors"`
	Error       string      `json:"error,omitempty"`
	Code        string      `json:"code,omitempty"`
	Field       string      `json:"field,omitempty"`
}

// LineError is one bad line of a stream: its 1-based number, the field at
// fault when one is, and why.
//
// It mirrors snapshot.LineError field for field.
type LineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"error"`
}
