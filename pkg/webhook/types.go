package webhook

import (
	"slices"
	"time"
)

// Event types an endpoint can subscribe to.
const (
	TypeMemoryStored      = "memory.stored"
	TypeMemoryUpdated     = "memory.updated"
	TypeMemorySuperseded  = "memory.superseded"
	TypeMemoryArchived    = "memory.archived"
	TypeMemoryDeleted     = "memory.deleted"
	TypeMemoryQuarantined = "memory.quarantined"
	TypeEpochCompleted    = "epoch.completed"
	TypePurgeCompleted    = "purge.completed"
)

// Types lists every event type, in the order the docs give them.
var Types = []string{TypeMemoryStored, TypeMemoryUpdated, TypeMemorySuperseded, TypeMemoryArchived,
	TypeMemoryDeleted, TypeMemoryQuarantined, TypeEpochCompleted, TypePurgeCompleted}

// Secret is one signing secret of an endpoint. A rotated-out secret keeps
// signing until Expires.
type Secret struct {
	Key     string     `json:"key"` // whsec_<base64 of 24 random bytes>
	Created time.Time  `json:"created"`
	Expires *time.Time `json:"expires,omitempty"`
}

// Endpoint is a tenant's registered receiver, as kept in the bucket.
type Endpoint struct {
	ID          string    `json:"id"`
	Tenant      string    `json:"tenant"`
	URL         string    `json:"url"`
	Types       []string  `json:"types,omitempty"` // empty: every type
	Description string    `json:"description,omitempty"`
	Created     time.Time `json:"created"`
	Secrets     []Secret  `json:"secrets"` // newest first
}

// Wants reports whether the endpoint subscribed to typ.
func (e *Endpoint) Wants(typ string) bool { return len(e.Types) == 0 || slices.Contains(e.Types, typ) }

// signingKeys are the secrets that sign at now: the newest, and rotated
// ones still in their grace period.
func (e *Endpoint) signingKeys(now time.Time) []string {
	keys := make([]string, 0, len(e.Secrets))
	for _, s := range e.Secrets {
		if s.Expires == nil || now.Before(*s.Expires) {
			keys = append(keys, s.Key)
		}
	}
	return keys
}

// View is an endpoint as the API shows it: never its secrets, except
// Secret once, in the answer that created or rotated it.
type View struct {
	ID          string    `json:"id"`
	Tenant      string    `json:"tenant"`
	URL         string    `json:"url"`
	Types       []string  `json:"types"`
	Description string    `json:"description,omitempty"`
	Created     time.Time `json:"created"`
	Secret      string    `json:"secret,omitempty"`
}

func (e *Endpoint) view() View {
	types := e.Types
	if len(types) == 0 {
		types = Types
	}
	return View{ID: e.ID, Tenant: e.Tenant, URL: e.URL, Types: slices.Clone(types), Description: e.Description, Created: e.Created}
}

// CreateRequest is the body of POST /v1/webhooks.
type CreateRequest struct {
	Tenant      string   `json:"tenant,omitempty"`
	URL         string   `json:"url"`
	Types       []string `json:"types,omitempty"`
	Description string   `json:"description,omitempty"`
}

// ListResponse is the answer of GET /v1/webhooks.
type ListResponse struct {
	Webhooks []View `json:"webhooks"`
}

// Payload is the body of a delivery.
type Payload struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"` // when the change was recorded on the bus
	Data      any       `json:"data"`
}
