package client

import (
	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// The wire types of the API under the client's names, so that a program
// needs no import but this package (pkg/api holds them; the server uses
// the same ones).
type (
	// Memory is a stored memory.
	Memory = memory.Memory
	// MemoryInput is what a learn request says about a memory.
	MemoryInput = memory.MemoryInput
	// Event is a conversation event for Ingest.
	Event = memory.Event
	// Message is one message of an event.
	Message = memory.Message

	LearnRequest    = api.LearnRequest
	EventsResponse  = api.EventsResponse
	RecallRequest   = api.RecallRequest
	RecallFilters   = api.RecallFilters
	RecallResponse  = api.RecallResponse
	RecallResult    = api.RecallResult
	Instant         = api.Instant
	ListResponse    = api.ListResponse
	History         = api.History
	DeleteResponse  = api.DeleteResponse
	ErasureReceipt  = api.ErasureReceipt
	ImportResponse  = api.ImportResponse
	TopicsRequest   = api.TopicsRequest
	TopicsResponse  = api.TopicsResponse
	Stats           = api.Stats
	ReindexStatus   = api.ReindexStatus
	ReindexResponse = api.ReindexResponse
	TopicNode       = api.TopicNode
	LineError       = api.LineError
	UsageTotal      = api.UsageTotal
	// ConsolidateRequest asks for a consolidation epoch.
	ConsolidateRequest = api.ConsolidateRequest
)

// At is the Instant t, for RecallRequest.AsOf and KnownAt.
var At = api.At
