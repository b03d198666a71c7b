// Package client is the Go client of Recollect's HTTP API: ingest, learn,
// recall, context, resume, topics, consolidation, memory inspection and
// deletion, and stats.
//
// Request and response types are the server's own (pkg/query, pkg/recall,
// pkg/ingest, pkg/memory); only the endpoints that have no server type yet
// (context, resume, learn and consolidate answers) are declared here.
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
