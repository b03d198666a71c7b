// Package remote serves a store.Store over NATS request/reply and provides a
// Client that implements store.Store on top of it.
//
// A split deployment without Qdrant runs the local engine in one process (the
// `store` target, which calls Serve) and reaches it from the other workers
// over the NATS connection they already hold (NewClient).
//
// Subjects, with the default prefix (DefaultSubjectPrefix):
//
//	recollect.store.upsert       {"memories":[...]}                   → {}
//	recollect.store.get          {"tenant","id"}                      → {"memory"}
//	recollect.store.delete       {"tenant","ids"}                     → {}
//	recollect.store.search       {"tenant","vector","k","filter"}     → {"hits":[{"memory","score"}]}
//	recollect.store.search_text  {"tenant","text","k","filter"}       → {"hits":[{"memory","score"}]} (score: BM25)
//	recollect.store.scroll       {"tenant","filter","after","limit","no_vectors"} → {"memories","more"}
//	recollect.store.count        {"tenant","filter"}                  → {"count"}
//	recollect.store.tenants      {}                                   → {"tenants"}
//
// Every reply is an envelope {"code","error","field","reason","result"}; a
// non-empty code carries the server's error so that store.ErrNotFound,
// store.ErrClosed and *memory.FieldError stay errors.Is/As-checkable on the
// client. Vectors travel as base64 of little-endian float32 bits, so they
// round-trip bit for bit. Requests carry the caller's remaining time in the
// Recollect-Timeout header and its trace in W3C trace-context headers;
// replies larger than the connection's max payload arrive in several
// messages marked with the Recollect-Chunk header ("i/n"). Large Upsert and
// Delete calls are split into requests that fit; Scroll asks for pages of
// ids after the last one seen.
package remote
