package api

import (
	"encoding/json"
	"time"
)

// Stats counts a tenant's memories, archived and superseded ones included
// (and counted apart too).
type Stats struct {
	Tenant     string `json:"tenant"`
	Memories   int    `json:"memories"`
	Archived   int    `json:"archived"`
	Superseded int    `json:"superseded"`
	// Quarantined counts explicit memories kept out of prompts because
	// they looked like prompt injection.
	Quarantined int            `json:"quarantined"`
	Domains     map[string]int `json:"domains"`
	Types       map[string]int `json:"types"`
	Kinds       map[string]int `json:"kinds"`
	Layers      map[string]int `json:"layers"`
	Chars       int            `json:"chars"`
	// Tokens is the BPE tokens (cl100k_base, as context budgets count
	// them) of every content, in all and by domain.
	Tokens       int            `json:"tokens"`
	DomainTokens map[string]int `json:"domain_tokens"`
	// Transcripts describes the transcript memories (one per conversation
	// message; counted in the figures above too): their own retention
	// keeps them unless an operator set one.
	Transcripts TranscriptStats `json:"transcripts"`
}

// TranscriptStats counts a tenant's transcript memories.
type TranscriptStats struct {
	Memories int `json:"memories"`
	Archived int `json:"archived"`
	Chars    int `json:"chars"`
	// Sessions counts the conversations they come from.
	Sessions int        `json:"sessions"`
	Oldest   *time.Time `json:"oldest,omitempty"`
	Newest   *time.Time `json:"newest,omitempty"`
}

// ConsolidateRequest is the body of POST /v1/consolidate.
type ConsolidateRequest struct {
	Tenant string `json:"tenant,omitempty"`
}

// ConsolidateResponse is the answer of POST /v1/consolidate: the epoch
// requested, and how many buffer memories it leaves untriaged because they
// are younger than the triage minimum age (--triage-min-age).
type ConsolidateResponse struct {
	Tenant              string  `json:"tenant"`
	Epoch               string  `json:"epoch"`
	TriageMinAgeSeconds float64 `json:"triage_min_age_seconds"`
	TooYoung            int     `json:"too_young"`
}

// ReindexRequest is the body of POST /v1/reindex.
type ReindexRequest struct {
	Tenant string `json:"tenant,omitempty"`
}

// ReindexResponse answers POST /v1/reindex: the request was queued.
type ReindexResponse struct {
	Tenant  string `json:"tenant"`
	Reindex string `json:"reindex"`
}

// UsageResponse is the answer of GET /v1/usage: model usage totals per
// component and model (what `recollect usage --url` prints).
type UsageResponse struct {
	Totals []UsageTotal `json:"totals"`
}

// UsageTotal aggregates records per component and model.
type UsageTotal struct {
	Component    string        `json:"component"`
	Model        string        `json:"model"`
	Calls        int64         `json:"calls"`
	Errors       int64         `json:"errors"` // calls whose Outcome is not OutcomeOK
	InputTokens  int64         `json:"input_tokens"`
	OutputTokens int64         `json:"output_tokens"`
	Duration     time.Duration `json:"duration_ns"`
}

// ReindexStatus is where the tenant's last reindex request stands. Done
// and Total count memories re-embedded of those found to move (over every
// round of the run).
//
// It mirrors embedder.ReindexStatus field for field.
type ReindexStatus struct {
	Tenant    string    `json:"tenant"`
	ID        string    `json:"id"`
	State     string    `json:"state"`
	Done      int       `json:"done"`
	Total     int       `json:"total"`
	Error     string    `json:"error,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// AuditResponse is the answer of GET /v1/audit: the tenant's audit
// entries, newest first.
//
// It mirrors query.AuditResponse field for field.
type AuditResponse struct {
	Tenant  string       `json:"tenant"`
	Entries []AuditEntry `json:"entries"`
}

// AuditEntry is one operation of a phase, applied or refused. Before and After
// are the memory records it read and wrote (Snapshot), absent when there
// were none (nothing before a create, nothing after a refusal).
//
// It mirrors auditlog.Entry field for field.
type AuditEntry struct {
	Time      time.Time       `json:"time"`
	Tenant    string          `json:"tenant"`
	Epoch     string          `json:"epoch,omitempty"` // the epoch request id
	Seq       int64           `json:"seq,omitempty"`   // the epoch sequence number
	Phase     string          `json:"phase"`           // triage, gate, merge, reconcile, supersede, distill, audit, decay, archive, retention, purge, ...
	Op        string          `json:"op"`              // promote, demote, adjust, merge, supersede, archive, delete, keep, reject, create, ...
	MemoryIDs []string        `json:"memory_ids,omitempty"`
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
	Applied   bool            `json:"applied"`
	Reason    string          `json:"reason,omitempty"`
	Decider   string          `json:"decider"`
	Model     string          `json:"model,omitempty"`
}
