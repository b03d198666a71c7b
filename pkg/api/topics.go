package api

import (
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
