package api

import (
	"github.com/recollect-dev/recollect/pkg/memory"
	"time"
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
	// ChainTruncated says the fact has more than MaxChain versions; the
	// chain holds the first MaxChain the walk reached.
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
