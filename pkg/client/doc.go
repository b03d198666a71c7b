// Package client is the Go client of Recollect's HTTP API: ingest, learn,
// recall, context, resume, topics, consolidation, memory inspection and
// deletion, and stats.
//
// The client is only a client: it depends on pkg/api (the wire types, which
// the server uses too), pkg/memory and the export format (pkg/snapshot),
// never on the server's packages, NATS, Prometheus or OpenTelemetry
// (TestOnlyAClient checks it). The wire types are aliased here under the
// client's names (RecallRequest, LearnRequest, Memory, Event, ...), so one
// import learns and recalls:
//
//	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
//	c.Remember(ctx, client.Remember{Content: "Alice prefers tabs"})
//	resp, err := c.Recall(ctx, client.RecallRequest{Query: "tabs or spaces?"})
//
// Tenancy: a request's empty tenant and namespace are filled from
// WithTenant and WithNamespace; when neither names one the server decides
// (the API key's tenant when it has keys, else "default"). WithAPIKey sends
// "Authorization: Bearer <key>".
//
// Errors: every answer outside 2xx is an *Error carrying the status, the
// server's error, field and code, and Retry-After. errors.Is matches
// ErrNotFound, ErrUnavailable (429, 503), ErrUnauthorized (401, 403) and
// ErrInvalid (400, 422; the same value as memory.ErrInvalid).
//
// Retries: only idempotent calls are retried, on 429 and 503, waiting what
// Retry-After says (else a doubling backoff), at most WithRetries times and
// never longer than WithMaxRetryWait per wait or past the context's
// deadline. Idempotent are the reads (GET, recall, context, topics),
// DELETE, ingest (event ids make resends safe) and learn (the client fills
// in a missing event id before the first attempt, so a resend is the same
// event). Consolidate is never retried: each call asks for a new epoch.
//
// Writes are asynchronous: ingest and learn answer once the event is queued;
// the memory is searchable a moment later (learn returns its memory id, so
// GetMemory can poll for it).
//
// Forget by key has no server endpoint: it pages through the tenant's
// memories (in one namespace, or all when none is named), deletes every one
// whose normalised key matches, and costs one listing of the tenant.
package client
