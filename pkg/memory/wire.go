package memory

import (
	"slices"
	"time"
)

// FactOp says what a fact message asks the embedder to do.
type FactOp string

const (
	// FactUpsert stores a memory, or reinforces it when it already exists.
	FactUpsert FactOp = "upsert"
	// FactFeedback records the outcome of using a memory.
	FactFeedback FactOp = "feedback"
)

// FactMessage is what the extractor publishes on the fact stream.
type FactMessage struct {
	Op     FactOp `json:"op"`
	Tenant string `json:"tenant"`
	// SourceEvent is the id of the conversation event that produced it; the
	// embedder uses it to make reinforcement idempotent under redelivery.
	SourceEvent string    `json:"source_event"`
	Memory      Memory    `json:"memory,omitzero"`
	Feedback    *Feedback `json:"feedback,omitempty"`
	// Rule names the extractor rule or model that produced the fact.
	Rule string `json:"rule,omitempty"`
}

// StoredOp says what happened to a memory.
type StoredOp string

const (
	StoredInserted   StoredOp = "inserted"
	StoredReinforced StoredOp = "reinforced"
	StoredUpdated    StoredOp = "updated"
	StoredDeleted    StoredOp = "deleted"
)

// StoredEvent is published after a memory was written, so topiary and other
// readers can react.
type StoredEvent struct {
	Tenant      string   `json:"tenant"`
	ID          string   `json:"id"`
	Op          StoredOp `json:"op"`
	Domain      string   `json:"domain,omitempty"`
	SourceEvent string   `json:"source_event,omitempty"`
	// State is the memory's standing right after the change (StoredState):
	// empty while live, else quarantined, archived or superseded. Readers
	// that act later (webhooks) learn it as it was, not as it is then.
	State string `json:"state,omitempty"`
}

// Standings a StoredEvent reports.
const (
	StateQuarantined = "quarantined"
	StateArchived    = "archived"
	StateSuperseded  = "superseded"
)

// StoredState is m's standing for a StoredEvent.
func StoredState(m *Memory) string {
	switch {
	case m.Quarantined():
		return StateQuarantined
	case m.Archived:
		return StateArchived
	case m.Superseded():
		return StateSuperseded
	}
	return ""
}

// ConsolidatedEvent is published after a consolidation epoch.
type ConsolidatedEvent struct {
	Tenant   string `json:"tenant"`
	Epoch    string `json:"epoch"`
	Seq      int64  `json:"seq,omitempty"`
	Decayed  int    `json:"decayed"`
	Promoted int    `json:"promoted"`
	// Dropped counts archived memories deleted by the operator's
	// archived-retention; nothing else is ever deleted by an epoch.
	Dropped    int `json:"dropped"`
	Memories   int `json:"memories"`
	Triaged    int `json:"triaged,omitempty"`
	Core       int `json:"core,omitempty"`
	Rejected   int `json:"rejected,omitempty"`
	Demoted    int `json:"demoted,omitempty"`
	Superseded int `json:"superseded,omitempty"`
	Merged     int `json:"merged,omitempty"`
	Distilled  int `json:"distilled,omitempty"`
	Audited    int `json:"audited,omitempty"`
	Refused    int `json:"refused,omitempty"`
	Archived   int `json:"archived,omitempty"`
	LLMCalls   int `json:"llm_calls,omitempty"`
}

// PurgedEvent is published when a subject purge finished (its receipt
// settled): it names the receipt, never the subject purged.
type PurgedEvent struct {
	Tenant   string    `json:"tenant"`
	Receipt  string    `json:"receipt"`
	State    string    `json:"state"` // complete, incomplete (see the receipt's places)
	Finished time.Time `json:"finished"`
}

// ConsolidateRequest asks the consolidator to run an epoch for a tenant.
type ConsolidateRequest struct {
	Tenant string `json:"tenant"`
	ID     string `json:"id"`
}

// HasSource reports whether the memory already records source event id.
func (m *Memory) HasSource(id string) bool { return slices.Contains(m.SourceIDs, id) }

// AddSource records a source event id, keeping the newest MaxSourceIDs.
func (m *Memory) AddSource(id string) {
	if id == "" || m.HasSource(id) {
		return
	}
	m.SourceIDs = append(m.SourceIDs, id)
	if n := len(m.SourceIDs); n > MaxSourceIDs {
		m.SourceIDs = slices.Clone(m.SourceIDs[n-MaxSourceIDs:])
	}
}
