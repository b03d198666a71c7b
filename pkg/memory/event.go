package memory

import (
	"time"
)

// EventType names what an event carries.
type EventType string

const (
	EventTurn       EventType = "turn"
	EventCompaction EventType = "compaction"
	EventSessionEnd EventType = "session_end"
	EventMemory     EventType = "memory"
	EventFeedback   EventType = "feedback"
)

// Message is one message of a conversation, as carried by compaction and
// session_end events.
type Message struct {
	// ID is the message's id: give a message streamed earlier as a turn
	// event that event's id, so that it is stored once whatever the path.
	ID   string `json:"id,omitempty"`
	Role string `json:"role"`
	// Name is the speaker's display name (as in the chat APIs' "name"):
	// the episode of the message is written "Name: content".
	Name    string    `json:"name,omitempty"`
	Content string    `json:"content"`
	TS      time.Time `json:"ts,omitzero"`
}

// MemoryInput is the payload of a "memory" event: an explicit memory (learn).
type MemoryInput struct {
	Key        string   `json:"key,omitempty"`
	Content    string   `json:"content"`
	Domain     string   `json:"domain,omitempty"`
	Type       Type     `json:"type,omitempty"`
	Kind       Kind     `json:"kind,omitempty"`
	Importance *float64 `json:"importance,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Scope      []string `json:"scope,omitempty"`
}

// Feedback reports the outcome of using a memory (procedures count successes).
type Feedback struct {
	MemoryID string `json:"memory_id"`
	Success  bool   `json:"success"`
}

// Event is what agents publish. ID is the client's message id and makes
// redelivery and resends idempotent.
type Event struct {
	ID        string    `json:"id"`
	Type      EventType `json:"type"`
	Tenant    string    `json:"tenant,omitempty"`
	Namespace string    `json:"namespace,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Subject   string    `json:"subject,omitempty"`
	Channel   string    `json:"channel,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Role      string    `json:"role,omitempty"`
	// Name is the speaker's display name on a turn (see Message.Name).
	Name     string       `json:"name,omitempty"`
	Content  string       `json:"content,omitempty"`
	TS       time.Time    `json:"ts,omitzero"`
	Messages []Message    `json:"messages,omitempty"`
	Memory   *MemoryInput `json:"memory,omitempty"`
	Feedback *Feedback    `json:"feedback,omitempty"`
}
