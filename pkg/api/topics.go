package api

import (
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// TopicsRequest is the body of POST /v1/topics.
type TopicsRequest struct {
	Tenant string   `json:"tenant,omitempty"`
	IDs    []string `json:"ids,omitempty"`
	// Limit bounds the memories returned per requested topic, most
	// important first (default 50, at most 500; 1000 per answer in all).
	Limit int `json:"limit,omitempty"`
}

// TopicDetail is a drilled-into topic: its name and its memories as GET
// /v1/memories/{id} returns them, most important first. Archived and
// superseded members, and members deleted since the tree was built, are
// left out.
type TopicDetail struct {
	Name     string          `json:"name"`
	Memories []memory.Memory `json:"memories"`
	// Truncated says more of the topic's memories are past the limit.
	Truncated bool `json:"truncated,omitempty"`
}

// TopicsResponse is the tree, or the requested nodes and, in Details,
// their memories.
//
// It mirrors query.TopicsResponse field for field.
type TopicsResponse struct {
	Tenant   string       `json:"tenant"`
	Built    time.Time    `json:"built,omitzero"`
	Memories int          `json:"memories"`
	Topics   []*TopicNode `json:"topics"`
	Missing  []string     `json:"missing,omitempty"`
	// Details holds, keyed by topic id, each requested topic found: its
	// name and memories (003 §6.6).
	Details map[string]TopicDetail `json:"details,omitempty"`
}

// TopicNode is a topic. A leaf has memories and no children; a parent's memories
// are the union of its children's.
//
// It mirrors topics.Node field for field.
type TopicNode struct {
	// ID is derived from the ids of the memories beneath the node, so it is
	// the same in every rebuild until that set changes; Tree.KeepIDs keeps
	// it across rebuilds while the set stays substantially the same.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Size is the number of memories beneath the node: len(MemoryIDs).
	Size int `json:"size"`
	// MemoryIDs lists every memory beneath the node, leaves and parents alike,
	// most important first (ties by id).
	MemoryIDs []string `json:"memory_ids"`
	// Children are ordered by size, largest first (ties by id).
	Children []*TopicNode `json:"children,omitempty"`
	// Domains counts the memories beneath the node per domain; memories
	// without a domain are not counted.
	Domains map[string]int `json:"domains,omitempty"`
}
