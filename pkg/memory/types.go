// Package memory defines Recollect's domain types: the memory record and the
// conversation event, with their validation and limits.
package memory

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits shared by every stage. A value over a limit is rejected with a
// *FieldError naming the field and the limit.
const (
	MaxContentChars = 8192
	MaxTags         = 20
	MaxTagChars     = 32
	MaxKeyChars     = 128
	MaxIDChars      = 128
	MaxNameChars    = 64 // tenant, namespace, session, subject, channel, agent
	MaxEventsBatch  = 1000
	MaxScopeGlobs   = 20
	MaxSourceIDs    = 64
	// MaxQuarantineChars bounds a quarantine reason (a detector's name).
	MaxQuarantineChars = 128
)

// RedactedTag marks a memory in which a detected secret was replaced by
// "[redacted:<kind>]" before it was stored.
const RedactedTag = "redacted"

// Domain names a memory domain. The built-in ones are below; the registry is
// extensible by configuration.
type Domain = string

// Built-in domains (000_abd7de0d1caa377d.txt).
const (
	DomainToolUsage       Domain = "tool-usage"
	DomainUserPreferences Domain = "user-preferences"
	DomainGeneral         Domain = "general"
)

// Type is what a memory says (004 types plus Nebo's categories).
type Type string

const (
	TypePolicy       Type = "policy"
	TypeWorkflow     Type = "workflow"
	TypePitfall      Type = "pitfall"
	TypeArchitecture Type = "architecture"
	TypeDecision     Type = "decision"
	TypePreference   Type = "preference"
	TypeFact         Type = "fact"
	TypeEntity       Type = "entity"
	TypeStyle        Type = "style"
	TypeArtifact     Type = "artifact"
	TypeEpisode      Type = "episode"
	TypeProcedure    Type = "procedure"
)

// Types lists every valid Type.
var types = []Type{TypePolicy, TypeWorkflow, TypePitfall, TypeArchitecture, TypeDecision,
	TypePreference, TypeFact, TypeEntity, TypeStyle, TypeArtifact, TypeEpisode, TypeProcedure}

// Kind decides how fast a memory decays (003).
type Kind string

const (
	KindEpisodic   Kind = "episodic"
	KindSemantic   Kind = "semantic"
	KindProcedural Kind = "procedural"
)

// Layer is a memory's place in the buffer → working → core lifecycle (003).
type Layer string

const (
	LayerBuffer  Layer = "buffer"
	LayerWorking Layer = "working"
	LayerCore    Layer = "core"
)

// Source says which path produced a memory.
type Source string

const (
	SourceTurn       Source = "turn"
	SourceCompaction Source = "compaction"
	SourceExit       Source = "exit"
	SourceAPI        Source = "api"
	SourceRule       Source = "rule"
)

// Confidence levels (001): explicit statements, inferred facts, unknown.
const (
	ConfidenceExplicit = 0.9
	ConfidenceInferred = 0.6
	ConfidenceUnknown  = 0.75
)

// LoreSubject is the subject of memories that belong to no single user.
const LoreSubject = "__lore__"

// DefaultTenant and DefaultNamespace are used when a request names none.
const (
	DefaultTenant    = "default"
	DefaultNamespace = "default"
)

// Memory is one durable memory record. Tenant is a hard boundary: no read or
// write ever crosses it.
type Memory struct {
	ID              string     `json:"id"`
	Tenant          string     `json:"tenant"`
	Namespace       string     `json:"namespace"`
	Subject         string     `json:"subject,omitempty"`
	Channel         string     `json:"channel,omitempty"`
	Session         string     `json:"session,omitempty"`
	Key             string     `json:"key,omitempty"`
	Content         string     `json:"content"`
	Domain          Domain     `json:"domain"`
	Type            Type       `json:"type"`
	Kind            Kind       `json:"kind"`
	Layer           Layer      `json:"layer"`
	Importance      float64    `json:"importance"`
	Confidence      float64    `json:"confidence"`
	AccessCount     int        `json:"access_count"`
	RepetitionCount int        `json:"repetition_count"`
	SuccessCount    int        `json:"success_count"`
	Tags            []string   `json:"tags,omitempty"`
	Scope           []string   `json:"scope,omitempty"`
	Evidence        string     `json:"evidence,omitempty"`
	SourceIDs       []string   `json:"source_ids,omitempty"`
	Source          Source     `json:"source"`
	CreatedAt       time.Time  `json:"created_at"`
	ModifiedAt      time.Time  `json:"modified_at"`
	LastAccessed    time.Time  `json:"last_accessed,omitzero"`
	ValidFrom       time.Time  `json:"valid_from,omitzero"`
	InvalidAt       *time.Time `json:"invalid_at,omitempty"` // record time, see validity.go
	ValidUntil      *time.Time `json:"valid_until,omitempty"`
	Archived        bool       `json:"archived,omitempty"`
	EmbeddingModel  string     `json:"embedding_model,omitempty"`
	// SupersededBy is the id of the memory that replaced this one (an
	// update, a reconcile or a merge); it is set together with InvalidAt.
	// A superseded memory is kept, with its history, and leaves recall by
	// default.
	SupersededBy string `json:"superseded_by,omitempty"`
	// DerivedFrom lists the memories this one was made from (merged,
	// reconciled or distilled): the history chain, and what a purge of a
	// subject follows to reach derived memories.
	DerivedFrom []string `json:"derived_from,omitempty"`
	// Epoch is the sequence number of the last consolidation epoch that
	// changed this memory: a redelivered epoch skips what it already did.
	Epoch int64 `json:"epoch,omitempty"`
	// Quarantine, when set, says why the memory is quarantined: an explicit
	// memory that looked like an instruction aimed at the model (prompt
	// injection, hidden markup, a forged turn). It is kept and searchable
	// on request, but never put into a prompt (context, resume, recall's
	// block) and left out of searches unless asked for.
	Quarantine string `json:"quarantined,omitempty"`
	// Vector is the dense embedding; stores persist it, APIs omit it. For
	// a memory longer than one chunk it is the mean of ChunkVectors.
	Vector []float32 `json:"vector,omitempty"`
	// ChunkVectors are the unit vectors of a long memory's chunks
	// (sentence-bounded parts of its content, see package embed/chunk), of
	// Vector's width; nil for a memory embedded as one text. Stores persist
	// them and search them when a query asks (store.Query.Chunks), so that
	// a long memory is found by its best part; APIs never carry them.
	ChunkVectors [][]float32 `json:"-"`
}

// Clone copies m deeply: neither copy's later changes reach the other.
func (m Memory) Clone() Memory {
	m.Tags = slices.Clone(m.Tags)
	m.Scope = slices.Clone(m.Scope)
	m.SourceIDs = slices.Clone(m.SourceIDs)
	m.DerivedFrom = slices.Clone(m.DerivedFrom)
	m.Vector = slices.Clone(m.Vector)
	m.ChunkVectors = cloneVectors(m.ChunkVectors)
	if m.InvalidAt != nil {
		t := *m.InvalidAt
		m.InvalidAt = &t
	}
	if m.ValidUntil != nil {
		t := *m.ValidUntil
		m.ValidUntil = &t
	}
	return m
}

// Quarantined reports whether the memory is quarantined.
func (m *Memory) Quarantined() bool { return m.Quarantine != "" }

// cloneVectors copies each of vs.
func cloneVectors(vs [][]float32) [][]float32 {
	if vs == nil {
		return nil
	}
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = slices.Clone(v)
	}
	return out
}

// Superseded reports whether a newer memory replaced this one.
func (m *Memory) Superseded() bool { return m.InvalidAt != nil }

// TranscriptTag marks transcript memories: one episodic memory per
// conversation message (a turn, or a message of a compaction or session
// end), kept as said. Recall finds them (dampened), context quotes them
// only in their own section, and the consolidation lifecycle leaves them
// alone: they have a retention of their own.
const TranscriptTag = "transcript"

// TranscriptContextChars bounds the message quoted as a transcript
// memory's evidence: the message said before it in its session.
const TranscriptContextChars = 480

// TranscriptContext is the evidence a transcript memory gives the message
// said after it: its content ("speaker: text"), cut to
// TranscriptContextChars characters.
func TranscriptContext(content string) string {
	if utf8.RuneCountInString(content) <= TranscriptContextChars {
		return content
	}
	return string([]rune(content)[:TranscriptContextChars])
}

// SaidAt is when what m says was said: its valid time's start, else when
// it was recorded.
func (m *Memory) SaidAt() time.Time {
	if !m.ValidFrom.IsZero() {
		return m.ValidFrom
	}
	return m.CreatedAt
}

// Transcript reports whether m is a transcript memory.
func (m *Memory) Transcript() bool { return slices.Contains(m.Tags, TranscriptTag) }

// RoleTagPrefix begins the tag naming a transcript memory's speaker role
// ("role:user", "role:assistant"). The content names the speaker ("Ann:
// …" when the agent gave a name, "user: …" when not); the tag keeps the
// role a named speaker had, so "what did I say…" finds Ann's turns when
// Ann is the user.
const RoleTagPrefix = "role:"

// RoleTag is the tag of a transcript memory said by role.
func RoleTag(role string) string { return RoleTagPrefix + role }

// SpeakerRole is the role tagged on a transcript memory ("" when none).
func (m *Memory) SpeakerRole() string {
	for _, t := range m.Tags {
		if r, ok := strings.CutPrefix(t, RoleTagPrefix); ok {
			return r
		}
	}
	return ""
}

// Explicit reports whether the memory was stated on purpose (learn, MCP,
// "memory" events, import): such memories are never evicted by a cap.
func (m *Memory) Explicit() bool { return m.Source == SourceAPI }

// Priority orders types for prompt assembly (004): critical=4 … normal=1.
func (t Type) Priority() int {
	switch t {
	case TypePolicy:
		return 4
	case TypeWorkflow, TypePitfall, TypeArchitecture:
		return 3
	case TypeDecision, TypePreference:
		return 2
	default:
		return 1
	}
}

// DefaultKind maps a type to the kind that decays like it.
func (t Type) DefaultKind() Kind {
	switch t {
	case TypeEpisode:
		return KindEpisodic
	case TypeWorkflow, TypeProcedure:
		return KindProcedural
	default:
		return KindSemantic
	}
}

// Valid reports whether t is a known type.
func (t Type) Valid() bool {
	for _, v := range types {
		if v == t {
			return true
		}
	}
	return false
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	return k == KindEpisodic || k == KindSemantic || k == KindProcedural
}

// Valid reports whether l is a known layer.
func (l Layer) Valid() bool {
	return l == LayerBuffer || l == LayerWorking || l == LayerCore
}

// Bonus is the recall score multiplier of a layer (003).
func (l Layer) Bonus() float64 {
	switch l {
	case LayerBuffer:
		return 0.9
	case LayerCore:
		return 1.1
	default:
		return 1.0
	}
}
