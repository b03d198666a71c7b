package remote

import (
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
)

// Operations; each is the last token of its request subject.
const (
	opUpsert     = "upsert"
	opGet        = "get"
	opDelete     = "delete"
	opSearch     = "search"
	opSearchText = "search_text"
	opScroll     = "scroll"
	opCount      = "count"
	opTenants    = "tenants"
	opPayload    = "update_payload"
	opCompact    = "compact"
	// The conditional ops (store.ConditionalWriter).
	opGetRevision = "get_revision"
	opUpsertIf    = "upsert_if"
	opPayloadIf   = "update_payload_if"
	// store.SessionLister.
	opSessions = "sessions"
)

// NATS headers of the protocol.
const (
	// headerTimeout carries the caller's remaining time as a Go duration; a
	// relative time is immune to clock skew between machines.
	headerTimeout = "Recollect-Timeout"
	// headerChunk marks part i of n of a reply split to fit the max payload.
	headerChunk = "Recollect-Chunk"
)

// envelope is every reply: an error (Code non-empty) or a result.
type envelope struct {
	Code   string `json:"code,omitempty"`
	Error  string `json:"error,omitempty"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason,omitempty"`
	Result any    `json:"result,omitempty"`
}

// wireMemory is a memory whose vector travels as base64: the outer Vector
// field shadows memory.Memory's for encoding/json. Its chunk vectors, which
// memory.Memory never encodes, travel beside it the same way.
type wireMemory struct {
	memory.Memory
	Vector       vector   `json:"vector,omitempty"`
	ChunkVectors []vector `json:"chunk_vectors,omitempty"`
}

func toWire(m memory.Memory) wireMemory {
	w := wireMemory{Memory: m, Vector: m.Vector}
	if len(m.ChunkVectors) > 0 {
		w.ChunkVectors = make([]vector, len(m.ChunkVectors))
		for i, c := range m.ChunkVectors {
			w.ChunkVectors[i] = c
		}
	}
	return w
}

func (w wireMemory) memory() memory.Memory {
	m := w.Memory
	m.Vector = []float32(w.Vector)
	if len(w.ChunkVectors) > 0 {
		m.ChunkVectors = make([][]float32, len(w.ChunkVectors))
		for i, c := range w.ChunkVectors {
			m.ChunkVectors[i] = c
		}
	}
	return m
}

func toWireAll(ms []memory.Memory) []wireMemory {
	out := make([]wireMemory, len(ms))
	for i, m := range ms {
		out[i] = toWire(m)
	}
	return out
}

func fromWireAll(ws []wireMemory) []memory.Memory {
	out := make([]memory.Memory, len(ws))
	for i, w := range ws {
		out[i] = w.memory()
	}
	return out
}

type upsertRequest struct {
	Memories []wireMemory `json:"memories"`
}

type getRequest struct {
	Tenant string `json:"tenant"`
	ID     string `json:"id"`
}

type getResult struct {
	Memory   wireMemory `json:"memory"`
	Revision uint64     `json:"revision,omitempty"`
}

// writeIfRequest is a conditional upsert (Tenant empty) or payload update.
type writeIfRequest struct {
	Tenant    string       `json:"tenant,omitempty"`
	Memories  []wireMemory `json:"memories"`
	Revisions []uint64     `json:"revisions"`
}

type payloadRequest struct {
	Tenant   string       `json:"tenant"`
	Memories []wireMemory `json:"memories"`
}

type deleteRequest struct {
	Tenant string   `json:"tenant"`
	IDs    []string `json:"ids"`
}

type searchRequest struct {
	Tenant string       `json:"tenant"`
	Vector vector       `json:"vector"`
	K      int          `json:"k"`
	Filter store.Filter `json:"filter"`
	// Chunks is store.Query.Chunks; a server that predates it scores by
	// the vectors alone.
	Chunks bool `json:"chunks,omitempty"`
	// Terms is store.Query.Terms; a server that predates it leaves every
	// hit's terms unknown.
	Terms string `json:"terms,omitempty"`
}

type searchTextRequest struct {
	Tenant string       `json:"tenant"`
	Text   string       `json:"text"`
	K      int          `json:"k"`
	Filter store.Filter `json:"filter"`
}

type wireHit struct {
	Memory wireMemory      `json:"memory"`
	Score  score           `json:"score"`
	Terms  store.TermMatch `json:"terms,omitempty"`
}

type searchResult struct {
	Hits []wireHit `json:"hits"`
}

type scrollRequest struct {
	Tenant string       `json:"tenant"`
	Filter store.Filter `json:"filter"`
	After  string       `json:"after,omitempty"` // only ids greater than this
	Limit  int          `json:"limit"`
	// NoVectors leaves the vectors out (ScrollMeta); a server that
	// predates it sends them, and the client drops them.
	NoVectors bool `json:"no_vectors,omitempty"`
	// Revisions asks for each memory's revision (store.RevisionScroller,
	// no vectors); a server whose store has none refuses it as
	// unsupported.
	Revisions bool `json:"revisions,omitempty"`
}

type scrollResult struct {
	Memories []wireMemory `json:"memories"`
	// Revisions are the memories' revisions, in order, when asked for.
	Revisions []uint64 `json:"revisions,omitempty"`
	More      bool     `json:"more,omitempty"` // ask again with After = the last id
}

type countRequest struct {
	Tenant string       `json:"tenant"`
	Filter store.Filter `json:"filter"`
}

type countResult struct {
	Count int `json:"count"`
}

type tenantsResult struct {
	Tenants []string `json:"tenants"`
}

type sessionsRequest = countRequest

type sessionsResult struct {
	Sessions []store.SessionSpan `json:"sessions"`
}
