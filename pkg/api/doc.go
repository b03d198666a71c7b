// Package api holds Recollect's HTTP wire types: the requests and answers
// of /v1, the error body, and what they carry. It depends on pkg/memory
// (itself free of server packages) and the standard library only, so that
// pkg/client, and any program that only talks to a server, builds without
// the server.
//
// Most types are the server's own: pkg/query, pkg/recall, pkg/promptctx,
// pkg/ingest, pkg/usage, pkg/erase and pkg/web declare them as aliases of
// these. A few server types carry behaviour of their own (decoding
// aliases, state methods) and are mirrored here field for field instead: RecallRequest, RecallFilters,
// Instant, RecallResponse, RecallTime, TimeWindow, ContextRequest,
// TopicsResponse, TopicNode, DeleteResponse, ErasureReceipt,
// ImportResponse, LineError, ReindexStatus, AuditResponse and AuditEntry.
// pkg/openapi's TestAPIMirrors checks every mirror against its server
// type, and TestSchemasMatchGoTypes both against /openapi.json, so the two cannot drift apart.
package api
