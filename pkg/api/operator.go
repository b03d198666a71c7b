package api

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// WhoAmI is the answer of GET /v1/whoami: who the request's API key is.
// Without API keys (a loopback server or --insecure) Auth is false and the
// caller may act for any tenant, as an admin key may.
type WhoAmI struct {
	Auth   bool   `json:"auth"`
	Key    string `json:"key,omitempty"`    // the key's name
	Tenant string `json:"tenant,omitempty"` // the key's tenant; may be empty for an admin key
	Admin  bool   `json:"admin"`
}

// TenantsResponse is the answer of GET /v1/tenants: for an admin key (or a
// server without keys) every tenant the store holds memories for, for a
// tenant key its own; with counts.
type TenantsResponse struct {
	Tenants []TenantSummary `json:"tenants"`
}

// TenantSummary counts one tenant's memories: all of them (archived,
// superseded and quarantined ones too), and apart by layer and standing.
type TenantSummary struct {
	Tenant      string         `json:"tenant"`
	Memories    int            `json:"memories"`
	Layers      map[string]int `json:"layers"`
	Archived    int            `json:"archived"`
	Superseded  int            `json:"superseded"`
	Quarantined int            `json:"quarantined"`
	// Created24h and Created7d count the memories created in the last day
	// and week (growth).
	Created24h int `json:"created_24h"`
	Created7d  int `json:"created_7d"`
}

// Quarantine review actions (POST /v1/memories/{id}/quarantine).
const (
	QuarantineRelease = "release" // clear the quarantine: the memory may enter prompts
	QuarantineKeep    = "keep"    // reviewed, stays quarantined
	QuarantineDelete  = "delete"  // reviewed, deleted for good
)

// QuarantineRequest is the body of POST /v1/memories/{id}/quarantine: an
// operator's review of a quarantined memory, recorded in the audit log
// (phase "quarantine", decider "operator") before it is applied.
type QuarantineRequest struct {
	Tenant string `json:"tenant,omitempty"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
}

// QuarantineResponse is the answer: the memory after the review (absent
// once deleted).
type QuarantineResponse struct {
	Tenant string         `json:"tenant"`
	ID     string         `json:"id"`
	Action string         `json:"action"`
	Memory *memory.Memory `json:"memory,omitempty"`
}

// Pipeline is the answer of GET /v1/pipeline (admin keys only): how the
// queue and this process's modules stand.
type Pipeline struct {
	// Ready is this process's readiness (what /readyz answers), with the
	// reason when not ready.
	Ready      bool   `json:"ready"`
	ReadyError string `json:"ready_error,omitempty"`
	// Modules are this process's modules, in start order.
	Modules   []ModuleState `json:"modules"`
	Streams   []StreamState `json:"streams"`
	Consumers []ConsumerLag `json:"consumers"`
	// DeadLetters are the newest dead letters, newest first (at most 50);
	// Streams counts them all (RECOLLECT_DLQ).
	DeadLetters []DeadLetter `json:"dead_letters"`
}

// ModuleState is one module of the process: running or not.
type ModuleState struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
}

// StreamState is the size of one JetStream stream.
type StreamState struct {
	Stream   string `json:"stream"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
}

// ConsumerLag is one durable consumer's backlog, whichever process runs it.
type ConsumerLag struct {
	Stream      string `json:"stream"`
	Consumer    string `json:"consumer"`
	Pending     uint64 `json:"pending"`
	AckPending  int    `json:"ack_pending"`
	Redelivered int    `json:"redelivered"`
}

// DeadLetter is a message a worker gave up on, with the reason.
type DeadLetter struct {
	Time       time.Time `json:"time"`
	Consumer   string    `json:"consumer"`
	Subject    string    `json:"subject"`
	Reason     string    `json:"reason"`
	Deliveries string    `json:"deliveries,omitempty"`
	Stream     string    `json:"stream,omitempty"`
	StreamSeq  string    `json:"stream_seq,omitempty"`
}
