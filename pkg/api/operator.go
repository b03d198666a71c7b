package api

import "github.com/recollect-dev/recollect/pkg/memory"

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
