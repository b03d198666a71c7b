// Package store defines the memory store interface that the local engine and
// Qdrant implement, and the filter and hit types they share.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// ErrNotFound is returned by Get when no memory has that id in that tenant.
var ErrNotFound = errors.New("memory not found")

// ErrUnavailable is wrapped by every error that means the store could not
// serve the call now but may later: closed, not reachable, overloaded or
// timed out. Servers answer it with 503 and Retry-After.
var ErrUnavailable = errors.New("store unavailable")

// ErrClosed is returned by every call on a store after Close. It wraps
// ErrUnavailable: to a caller a closed store is one that is not serving.
var ErrClosed = fmt.Errorf("store closed: %w", ErrUnavailable)

// ErrDimension is wrapped when a vector's width differs from the one the
// tenant's memories (or the collection) hold: after a change of embedding
// model, until a reindex completes. It wraps memory.ErrInvalid.
var ErrDimension = fmt.Errorf("vector width differs from the stored vectors': %w", memory.ErrInvalid)

// ErrConflict is wrapped when a conditional write finds a memory changed
// (or deleted) since the caller read it: its Revision is not the stored
// one. Nothing of the batch is written; the caller reads again and
// re-applies its change (see Update).
var ErrConflict = errors.New("memory changed since it was read")

// ConflictError names the memories of a refused conditional batch.
type ConflictError struct {
	Tenant string
	IDs    []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("write to tenant %s refused: %d memories changed since they were read (%s): %v",
		e.Tenant, len(e.IDs), strings.Join(e.IDs[:min(len(e.IDs), 5)], ", "), ErrConflict)
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// ConditionalWriter is a store that writes a memory only if it is still
// as the writer read it. GetRevision is Get with the memory's revision, an
// opaque non-zero value that changes with every write of the memory's
// fields. UpsertIf and UpdatePayloadIf are Upsert and UpdatePayload where
// mems[i] is written only if the stored memory's revision is still revs[i]
// (0: unconditionally); one that differs, or a memory deleted since, fails
// the whole call with a *ConflictError, writing nothing of it. Revisions
// mean nothing to another store, and a restart may change them all.
type ConditionalWriter interface {
	GetRevision(ctx context.Context, tenant, id string) (memory.Memory, uint64, error)
	UpsertIf(ctx context.Context, mems []memory.Memory, revs []uint64) error
	UpdatePayloadIf(ctx context.Context, tenant string, mems []memory.Memory, revs []uint64) error
}

// RevisionScroller is a ConditionalWriter that scrolls without vectors
// (as store.MetaScroller) and with each memory's revision, as GetRevision
// would return it: a reader of many memories that writes some of them
// back conditionally (an epoch's commit) reads them in one pass.
type RevisionScroller interface {
	ScrollRevisions(ctx context.Context, tenant string, f Filter, fn func(memory.Memory, uint64) error) error
}

// Filter narrows a search, scroll or count. Zero values mean "any". Every
// list field matches when the memory's value is one of the listed values
// (Tags: when the memory has at least one of them; ExcludeTags: when it
// has none of them). Archived memories are
// left out unless IncludeArchived, superseded ones (InvalidAt set) unless
// IncludeSuperseded, quarantined ones (Quarantine set) unless
// IncludeQuarantined; a memory both archived and superseded needs both.
// CreatedAfter and CreatedBefore are strict bounds, like time.Time's After
// and Before. Get ignores filters and returns any memory.
type Filter struct {
	Namespaces []string
	Subjects   []string
	Domains    []string
	Types      []memory.Type
	Kinds      []memory.Kind
	Layers     []memory.Layer
	Tags       []string
	// ExcludeTags leaves out memories holding any of these tags (the
	// embedder's dedup never compares a fact with a transcript memory).
	ExcludeTags []string
	Sessions    []string
	// Keys matches memories whose (normalised) key is one of these.
	Keys            []string
	IncludeArchived bool
	// IncludeSuperseded keeps memories a newer one replaced: listings,
	// history, export and maintenance want them, recall does not.
	IncludeSuperseded bool
	// IncludeQuarantined keeps quarantined memories (explicit memories that
	// looked like prompt injection): operators' listings, export and
	// maintenance want them, recall and prompts do not.
	IncludeQuarantined bool
	CreatedAfter       time.Time
	CreatedBefore      time.Time
	// ValidAt keeps the memories true at that time, superseded since or
	// not (valid time: ValidSince ≤ ValidAt < ValidTo); KnownAt those
	// Recollect held as current then (record time: CreatedAt ≤ KnownAt <
	// InvalidAt). With both, a valid time closed after KnownAt counts as
	// open. Either one replaces the superseded rule: IncludeSuperseded
	// does nothing with them. memory.TimeView.Holds is the reference.
	ValidAt time.Time
	KnownAt time.Time
	// Days keeps the memories indexed under at least one of these days
	// (MemoryDays: the day of the event time and the days of the times
	// the content names; see timedays.go). Empty means any; a store
	// answers it from an index, not a scan.
	Days []int32
}

// View is the filter's reading of the two clocks.
func (f *Filter) View() memory.TimeView { return memory.TimeView{AsOf: f.ValidAt, KnownAt: f.KnownAt} }

// Query is a dense similarity search within one tenant. K, the most hits
// returned (best first), must be positive; memories without a vector never
// match.
type Query struct {
	Tenant string
	Vector []float32
	K      int
	Filter Filter
	// Chunks scores a memory that has ChunkVectors by the best of its
	// vector and its chunks' vectors (recall: a long memory is found by its
	// best part). A memory is still returned once, and its hit carries that
	// best score. Without it only Vector counts (dedup and consolidation
	// compare whole memories).
	Chunks bool
	// Terms, when not empty, asks the store to say of each hit whether its
	// indexed text (lexical.MemoryVector) holds one of the terms of Terms
	// (Hit.Terms): recall tempers a dense hit that shares no word with the
	// question. A store that cannot tell leaves Hit.Terms TermsUnknown.
	Terms string
	// Scratch, when set, may hold the hits' vectors (see Scratch): they are
	// then valid only until the caller resets it.
	Scratch *Scratch
}

// TermMatch says whether a dense hit shares a term with Query.Terms.
type TermMatch int8

const (
	TermsUnknown TermMatch = iota // not asked, or the store cannot tell
	TermsNone                     // none of the query's terms
	TermsSome                     // at least one of them
)

// TextQuery is a lexical (BM25) search within one tenant. Text is analysed
// by package lexical; a text of only stopwords matches nothing, a blank one
// is invalid. K, the most hits returned (best first), must be positive.
type TextQuery struct {
	Tenant string
	Text   string
	K      int
	Filter Filter
	// Scratch is Query.Scratch.
	Scratch *Scratch
}

// Hit is one search result. For Search, Score is the cosine similarity in
// [-1, 1]; for SearchText it is the BM25 score, positive (only memories
// sharing a term with the query are hits) and unbounded.
type Hit struct {
	Memory memory.Memory
	Score  float64
	// Terms answers Query.Terms (Search only).
	Terms TermMatch
}

// Store holds memories. Every call is scoped to one tenant; nothing crosses
// tenants. Upsert by id is idempotent; a returned nil error means durable.
type Store interface {
	Upsert(ctx context.Context, mems []memory.Memory) error
	Get(ctx context.Context, tenant, id string) (memory.Memory, error)
	Delete(ctx context.Context, tenant string, ids ...string) error
	// UpdatePayload rewrites every field but the vector of the tenant's
	// memories with these ids (counters, importance, layer, archived,
	// timestamps), keeping the stored vector: bookkeeping never re-embeds and
	// never puts back a vector a concurrent re-embedding replaced. The text a
	// memory is indexed by (lexical.SameText) must be unchanged, or the batch
	// is refused with memory.ErrInvalid and nothing is written; text changes
	// go through Upsert. Ids the tenant does not hold are skipped, never
	// created. A nil error means durable.
	UpdatePayload(ctx context.Context, tenant string, mems []memory.Memory) error
	// Search ranks the tenant's memories matching q.Filter by cosine
	// similarity to q.Vector, best first, at most q.K. The scores are exact;
	// which memories make the top K may be approximate in a large partition
	// (the local engine's int8 scan, Qdrant's HNSW), with recall@10 against
	// an exact scan of at least 0.95. A vector of another width than the
	// tenant's memories is refused with ErrDimension.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// SearchText ranks the tenant's memories matching q.Filter by BM25 over
	// their lexical.MemoryVector. IDF counts the tenant's memories, archived
	// ones included and the filter not applied (Qdrant's counts span its
	// collection; see package lexical).
	SearchText(ctx context.Context, q TextQuery) ([]Hit, error)
	// Scroll calls fn for every memory of the tenant matching f, in id order,
	// until fn returns an error (returned) or the memories run out.
	Scroll(ctx context.Context, tenant string, f Filter, fn func(memory.Memory) error) error
	Count(ctx context.Context, tenant string, f Filter) (int, error)
	Tenants(ctx context.Context) ([]string, error)
	Close() error
}

// HybridQuery asks for both recall channels of one query: the dense search
// by Vector and the lexical search by Text, each up to K hits, under one
// filter.
type HybridQuery struct {
	Tenant string
	Vector []float32
	Text   string
	K      int
	Filter Filter
	// Chunks is Query.Chunks for the dense channel.
	Chunks bool
	// Scratch is Query.Scratch for both channels.
	Scratch *Scratch
}

// HybridSearcher is a store that answers both channels of a HybridQuery in
// one round trip (Qdrant's batched Query API). The results are exactly what
// Search and SearchText would return; callers fall back to those two calls
// when a store does not have it.
type HybridSearcher interface {
	SearchHybrid(ctx context.Context, q HybridQuery) (dense, lexical []Hit, err error)
}

// MetaScroller is a store that can scroll without vectors: ScrollMeta is
// Scroll with every memory's Vector left nil, for readers that need the
// vectors of few memories or none (consolidation reads a whole tenant and
// looks up neighbours for its changed memories only), so that the store
// need not copy a vector per memory. Get returns a memory with its vector.
type MetaScroller interface {
	ScrollMeta(ctx context.Context, tenant string, f Filter, fn func(memory.Memory) error) error
}

// PageScroller is a store that can start a scroll without vectors after
// an id: ScrollMeta of the memories whose ids sort after after, without
// reading the ones before (a listing's next page deep into a large
// tenant costs one page, not the tenant).
type PageScroller interface {
	ScrollMetaAfter(ctx context.Context, tenant string, f Filter, after string, fn func(memory.Memory) error) error
}

// Adopter is a store that keeps memories embedded by other models apart,
// where its searches do not reach them: Qdrant has a collection per
// embedding model, so after a model change the tenant's memories sit in
// the old model's collection. Adopt moves the tenant's memories from there
// into the store without their vectors (pending: found by BM25 until they
// are re-embedded) and reports how many it moved. A memory the store
// already holds wins over an adopted copy. It is idempotent and safe to
// interrupt: a memory leaves its old place only once it is stored here.
// The local engine holds every model's memories in one partition and needs
// no adoption.
type Adopter interface {
	Adopt(ctx context.Context, tenant string) (int, error)
}

// Compactor is a store that can rewrite its files on demand so that the
// bytes of deleted memories are in none of them (the local engine; an
// erasure needs it, since a delete only appends a tombstone). Qdrant
// deletes points itself and has no such call.
type Compactor interface {
	Compact(ctx context.Context) error
}

// SessionSpan is one session of a tenant as its memories tell it: the
// valid time (ValidFrom, else CreatedAt) of its first and last memory and
// how many it has.
type SessionSpan struct {
	Session  string    `json:"session"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	Memories int       `json:"memories"`
}

// SessionLister is a store that lists a tenant's sessions: those of the
// memories f lets through (memories without a session are in none), in
// the order they began (SortSessions). Recall reads "in our fourth
// session" with it.
type SessionLister interface {
	Sessions(ctx context.Context, tenant string, f Filter) ([]SessionSpan, error)
}

// SortSessions orders spans by their first memory's time, then id.
func SortSessions(spans []SessionSpan) {
	slices.SortFunc(spans, func(a, b SessionSpan) int {
		if c := a.First.Compare(b.First); c != 0 {
			return c
		}
		return strings.Compare(a.Session, b.Session)
	})
}
