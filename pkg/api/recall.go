package api

import (
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
	// Information is the information prior (see info.go): below 1 for a
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
	// FusedScore its score before the blend (see blendRerank).
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
