package api

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Weights split relevance between the two channels (Nebo's adaptive
// weights by query shape).
type Weights struct {
	Vector float64 `json:"vector"`
	Text   float64 `json:"text"`
}

// RecallResult is one recalled memory with every part of its score.
type RecallResult struct {
	Memory     memory.Memory `json:"memory"`
	Score      float64       `json:"score"`
	Relevance  float64       `json:"relevance"` // fused from semantic and lexical
	Semantic   float64       `json:"semantic"`  // cosine similarity
	Lexical    float64       `json:"lexical"`   // BM25 relative to the best hit
	Importance float64       `json:"importance"`
	Recency    float64       `json:"recency"`
	LayerBonus float64       `json:"layer_bonus"`
	Confidence float64       `json:"confidence_factor"`
	Channel    float64       `json:"channel_factor"`
	Dampening  float64       `json:"dampening"`
	// Information is the information prior (recall's info.go): below 1 for a
	// memory with few informative terms.
	Information float64 `json:"information"`
	// Expanded says the relevance came from an alternative phrasing
	// (ExpandedQuery) rather than the request's query.
	Expanded      bool   `json:"expanded,omitempty"`
	ExpandedQuery string `json:"expanded_query,omitempty"`
	// KeyMatch says the memory was recalled by the request's key, not
	// ranked by search.
	KeyMatch bool `json:"key_match,omitempty"`
	// Rerank is the LLM's judgement in [0, 1] of a reranked result, and
	// FusedScore its score before the blend.
	Rerank     *float64 `json:"rerank,omitempty"`
	FusedScore *float64 `json:"fused_score,omitempty"`
	// TimeFactor multiplies the score for time: a match with the query's
	// window (TimeMatch in [0, 1], the window's words in TimeWindow), and
	// MentionsTime for a question asking when.
	TimeFactor   float64 `json:"time_factor"`
	TimeMatch    float64 `json:"time_match,omitempty"`
	TimeWindow   string  `json:"time_window,omitempty"`
	MentionsTime bool    `json:"mentions_time,omitempty"`
	// OutrankedBy names a newer memory about the same thing that took this
	// one's place (newer wins).
	OutrankedBy string `json:"outranked_by,omitempty"`
	// Speaker multiplies the score of a conversation turn said by someone
	// other than the person the question is about (below 1); absent: 1.
	Speaker float64 `json:"speaker_factor,omitempty"`
	// Name multiplies the score of a memory naming something (a
	// capitalised word that is neither the question's nor a speaker's) for
	// a question asking what or which kind of named thing (city, book,
	// band, …); absent: 1.
	Name float64 `json:"name_factor,omitempty"`
	// Error multiplies the score of a memory reporting an error (its first
	// line says something failed and it quotes what was printed), or of the
	// conversation turn replying to one, for a question asking which errors
	// there were or how something was fixed; absent: 1.
	Error float64 `json:"error_factor,omitempty"`
	// Session multiplies the score of a memory of the session the question
	// names by its place in time ("in our fourth session"); absent: 1.
	Session float64 `json:"session_factor,omitempty"`
}

// RecallStep reports one LLM step of a recall: whether it changed the answer,
// what set it off, and otherwise why not.
type RecallStep struct {
	Applied bool `json:"applied"`
	// Trigger is "request" (the request asked), "auto" (expansion after a
	// weak first pass) or "default" (the server reranks by default).
	Trigger string `json:"trigger"`
	// Reason says why a step was not applied: llm_off, no_candidates,
	// not_better, failed, timeout, unparseable, search_failed.
	Reason string `json:"reason,omitempty"`
	// Queries are the alternative phrasings an expansion searched.
	Queries []string `json:"queries,omitempty"`
	// Reranked is how many candidates the LLM judged.
	Reranked int `json:"reranked,omitempty"`
}

// RecallRequest is the body of POST /v1/recall.
//
// It mirrors recall.Request field for field.
type RecallRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Query     string `json:"query"`
	K         int    `json:"k,omitempty"`
	// PerDomain overrides the per-domain budget (000: 3 per domain): each
	// domain's best PerDomain results are placed before any domain's
	// further ones, then the rest of the k places go by score. It spreads
	// the answer over the domains; it never makes it shorter than k.
	PerDomain int           `json:"per_domain,omitempty"`
	Channel   string        `json:"channel,omitempty"`
	Filters   RecallFilters `json:"filters,omitzero"`
	Dry       bool          `json:"dry,omitempty"`
	// Expand asks the LLM for alternative phrasings searched as well (003
	// §4.4). Unset, recall expands on its own when the first pass is weak;
	// false never expands. Without an LLM it is reported as not applied.
	Expand *bool `json:"expand,omitempty"`
	// Rerank has the LLM reorder the best candidates (003 §4.5). Unset
	// follows the server's --recall-rerank.
	Rerank *bool `json:"rerank,omitempty"`
	// Key recalls the memories stored under this key (normalised, in the
	// request's namespaces) first; when none has it, recall falls back to
	// searching, with the key's words as the query if Query is empty.
	Key string `json:"key,omitempty"`
	// AsOf is the time the question is asked at (RFC 3339; default now):
	// recency is measured from it and the query's time expressions ("last
	// week") are read against it. Given, it also asks what was true then
	// (valid time): the versions valid at AsOf, even if superseded since.
	AsOf Instant `json:"as_of,omitzero"`
	// KnownAt asks what Recollect knew at that time (record time): the
	// memories it held then, superseded since or not, none learnt later.
	KnownAt Instant `json:"known_at,omitzero"`
}

// RecallFilters narrow recall.
//
// It mirrors recall.Filters field for field.
type RecallFilters struct {
	Domains  []string       `json:"domains,omitempty"`
	Types    []memory.Type  `json:"types,omitempty"`
	Kinds    []memory.Kind  `json:"kinds,omitempty"`
	Layers   []memory.Layer `json:"layers,omitempty"`
	Tags     []string       `json:"tags,omitempty"`
	Subjects []string       `json:"subjects,omitempty"`
	Sessions []string       `json:"sessions,omitempty"`
	After    time.Time      `json:"after,omitzero"`
	Before   time.Time      `json:"before,omitzero"`
	// IncludeArchived and IncludeSuperseded list archived and superseded
	// memories too (their history, a search of the past); neither ever goes
	// into the context block. "archived" is accepted for include_archived.
	IncludeArchived   bool `json:"include_archived,omitempty"`
	IncludeSuperseded bool `json:"include_superseded,omitempty"`
	// IncludeQuarantined lists quarantined memories too (explicit memories
	// that looked like prompt injection), for operators; they never go
	// into the context block.
	IncludeQuarantined bool `json:"include_quarantined,omitempty"`
	// FilePath keeps memories whose scope globs match this file, and
	// memories without scope globs (004's scoped retrieval).
	FilePath string `json:"file_path,omitempty"`
	// Time "query" keeps only memories whose event time lies in the time
	// window the query names ("in June 2023"); empty uses the window as a
	// soft boost in ranking.
	Time string `json:"time,omitempty"`
}

// Instant is a request's as_of or known_at, an RFC 3339 time; the zero
// Instant is left out of the request.
//
// It mirrors recall.Instant (which also names the field in its parse
// errors).
type Instant struct{ time.Time }

// At is the Instant t.
func At(t time.Time) Instant { return Instant{t} }

// RecallResponse is the body of a recall answer.
//
// It mirrors recall.Response field for field.
type RecallResponse struct {
	Query    string         `json:"query"`
	Weights  Weights        `json:"weights"`
	Memories []RecallResult `json:"memories"`
	Context  string         `json:"context"`
	// Expand and Rerank report the LLM steps when one was asked for or
	// tried.
	Expand *RecallStep `json:"expand,omitempty"`
	Rerank *RecallStep `json:"rerank,omitempty"`
	// Time is how the request read time: as_of, the query's windows and
	// stance, the recency scale.
	Time *RecallTime `json:"time,omitempty"`
}

// RecallTime explains how recall read time for a request.
//
// It mirrors recall.TimeInfo field for field.
type RecallTime struct {
	AsOf     time.Time    `json:"as_of"`
	Windows  []TimeWindow `json:"windows,omitempty"`
	AsksWhen bool         `json:"asks_when,omitempty"`
	Past     bool         `json:"past,omitempty"`
	Recent   bool         `json:"recent,omitempty"`
	Terms    []string     `json:"terms,omitempty"`
	// Filtered says the windows filtered the candidates (filters.time
	// "query" and a window found).
	Filtered bool `json:"filtered,omitempty"`
	// RecencyScaleHours is the scale recency decayed on: the candidates'
	// span of event times, at least a week.
	RecencyScaleHours float64 `json:"recency_scale_hours,omitempty"`
	// RecencyApplied says recency decayed with age: only for a question
	// about the current state (recall's currentState); otherwise every
	// memory's recency is 1.
	RecencyApplied bool `json:"recency_applied"`
	// NewerWins says competing memories were ordered newest first.
	NewerWins bool `json:"newer_wins,omitempty"`
	// ValidAt and KnownAt are the time view the candidates were filtered
	// by: what was true at ValidAt (the request's as_of, when given), what
	// Recollect knew at KnownAt.
	ValidAt time.Time `json:"valid_at,omitzero"`
	KnownAt time.Time `json:"known_at,omitzero"`
}

// TimeWindow is a span of time [From, To) a text refers to. A zero From is
// open to the past, a zero To open to the future; never both.
//
// It mirrors temporal.Window field for field.
type TimeWindow struct {
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Confidence in (0, 1] that the text means this span: an explicit date
	// is near 1, a bare month or "a few years ago" lower, "recently" low.
	Confidence float64 `json:"confidence"`
	// Text is the words that gave the window.
	Text string `json:"text"`
}
