package api

import (
	"github.com/recollect-dev/recollect/pkg/memory"
)

// LearnRequest is the body of POST /v1/memories: an explicit memory.
type LearnRequest struct {
	ID        string `json:"id,omitempty"`
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Subject   string `json:"subject,omitempty"`
	Channel   string `json:"channel,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Wait asks for the answer once the memory is stored (as does the query
	// parameter wait=true); Timeout bounds that wait, a Go duration
	// (default 10s, at most 30s; also the query parameter timeout).
	Wait    bool   `json:"wait,omitempty"`
	Timeout string `json:"timeout,omitempty"`
	memory.MemoryInput
}

// LearnResponse is the answer of POST /v1/memories: 202 with the event id
// and the id the memory will have; with wait, 201 and the stored memory
// (Stored), or 202 with Stored false when the wait timed out. Merged says
// a near-duplicate absorbed the memory: MemoryID is then the absorbing
// memory's id.
type LearnResponse struct {
	ID       string         `json:"id"`
	MemoryID string         `json:"memory_id"`
	Stored   *bool          `json:"stored,omitempty"`
	Merged   bool           `json:"merged,omitempty"`
	Memory   *memory.Memory `json:"memory,omitempty"`
}

// EventsResponse is the body of a successful POST /v1/events.
type EventsResponse struct {
	Accepted int      `json:"accepted"`
	IDs      []string `json:"ids"`
}
